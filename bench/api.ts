import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { deployedNodeOptions } from '../test/support/deployed-node-options.js';
import { processRssMb, startCoordinator, stopCoordinator } from './coordinator-process.js';
import { publish, type Row } from './report.js';
import { onDatabase, requireWrk, wrk } from './scale.js';
import { processCpu } from './targets.js';

/**
 * What one `GET /api/monitors` costs the coordinator, without the checks around it: a
 * coordinator with checks and notifications off (no traffic leaves it) and N monitors made
 * through the API, under wrk (16 connections), per page size. The CPU is the coordinator
 * process's own (user + system, /proc), divided by the requests answered in the window; a
 * warm-up run before each window is not counted. Meant for side-by-side runs of two builds:
 * the scale bench's figures at 100k monitors move with the checks and the machine's load.
 */
export async function apiBench(): Promise<void> {
  Logger.overrideLogger(false);
  requireWrk();
  const databases = (process.env.BENCH_DATABASES ?? 'sqlite').split(',');
  const size = Number(process.env.BENCH_MONITORS ?? 100);
  const pageSizes = (process.env.BENCH_PER_PAGE ?? '1,100').split(',').map(Number);
  const seconds = Number(process.env.BENCH_WRK_SECONDS ?? 10);
  const warmup = Number(process.env.BENCH_WARMUP ?? 3);
  const nodeOptions = process.env.BENCH_COORDINATOR_NODE_OPTIONS ?? deployedNodeOptions('coordinator');
  const rows: Row[] = [];
  for (const database of databases) {
    await onDatabase(database, async (databaseUrl) => {
      const apiKey = `pkt_${randomBytes(32).toString('hex')}`;
      const coordinator = await startCoordinator({
        DATABASE_URL: databaseUrl,
        BOOTSTRAP_API_KEY: apiKey,
        LOG_LEVEL: 'error',
        CHECKS_ENABLED: 'false',
        DISPATCH_ENABLED: 'false',
        // The budget would stop wrk after 5000 requests: this measures the server, not the limit.
        RATE_LIMIT_POINTS_PER_HOUR: '100000000',
        NODE_OPTIONS: nodeOptions,
        ...(database === 'postgres' ? { SECRETS_KEY: randomBytes(32).toString('base64') } : {}),
      });
      try {
        await createMonitors(coordinator.url, apiKey, size);
        for (const perPage of pageSizes) {
          const url = `${coordinator.url}/api/monitors?per_page=${perPage}`;
          if (warmup > 0) wrk(url, warmup, apiKey);
          const before = processCpu(coordinator.pid);
          const result = wrk(url, seconds, apiKey);
          const cpu = processCpu(coordinator.pid) - before;
          const requests = Number(result['requests/s']) * seconds;
          rows.push({
            database: database === 'postgres' ? 'PostgreSQL' : 'SQLite',
            monitors: size,
            per_page: perPage,
            ...result,
            'CPU ms / request': Number(((cpu * 1000) / requests).toFixed(3)),
            'RSS MB': Math.round(processRssMb(coordinator.pid)),
          });
        }
      } finally {
        await stopCoordinator(coordinator);
      }
    });
  }
  publish(
    'One API request',
    `\`npm run bench -- api\`: one coordinator with checks and notifications off and ${size} https ` +
      `monitors made through the API; \`GET /api/monitors?per_page=N\` under wrk (1 thread, 16 ` +
      `connections, ${seconds} s after ${warmup} s not counted). CPU = the coordinator process's ` +
      `user + system time per request answered. NODE_OPTIONS: ${nodeOptions || '(none)'}.`,
    rows,
  );
}

/** `count` https monitors of a loopback address, made one by one through the API. */
async function createMonitors(api: string, apiKey: string, count: number): Promise<void> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${api}/api/monitors`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: `Bench monitor ${i}`,
        regions: ['us-east-1', 'eu-west-1'],
        check_interval: 60,
        settings: { https: { url: `http://127.0.0.1:9/bench/${i}` } },
      }),
    });
    if (response.status !== 201) throw new Error(`monitor ${i}: ${response.status} ${await response.text()}`);
  }
}
