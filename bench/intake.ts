import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ServerNats } from '@nestjs/microservices';
import type { Msg } from '@nats-io/transport-node';
import { toWireRequest, type ProbeResult } from '#contracts';
import type { NatsLink } from '#runtime';
import { NatsLinkServer } from '#runtime/nats-server';
import { AgentRuntime } from '../apps/agent/src/agent-runtime.js';
import { ProbeController } from '../apps/agent/src/probe.controller.js';
import { PROBE_PATTERN } from '../apps/agent/src/probe-routes.js';
import { probeRequest } from '../test/support/probe-request.js';
import { percentile, publish, type Row } from './report.js';

/**
 * `npm run bench -- intake`: what taking a probe request costs the agent besides the probe,
 * in CPU microseconds per message, in one process (so a busy machine moves all rows alike):
 * the agent's ProbeController (validation included) called directly, as a raw NATS
 * subscription would; through NatsLinkServer's short request path (docs/decisions/0014);
 * and through Nest's own request path (rxjs stream and next-tick queue per reply). The probe
 * itself is a resolved promise and the message a stand-in with a real wire request, so no
 * NATS server is involved. Rounds of each path are interleaved; medians of the rounds.
 */
export async function intakeBench(): Promise<void> {
  const perRound = Number(process.env.BENCH_MESSAGES ?? 20_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
  const result: ProbeResult = {
    check_id: 'bench',
    monitor_id: '0'.repeat(24),
    region: 'eu-west-1',
    scheduled_at: 0,
    status: 'up',
    phase: null,
    error: null,
    response_time_ms: 1,
    timings: { connect_ms: 1, total_ms: 1 },
    http_status: null,
    cert_not_after: null,
    agent_id: 'bench',
    checker_ip: null,
    started_at: 0,
  };
  const runtime = { execute: () => Promise.resolve(result) };

  @Module({ controllers: [ProbeController], providers: [{ provide: AgentRuntime, useValue: runtime }] })
  class IntakeModule {}

  const link = { onConnected: () => undefined, drainSubscriptions: () => Promise.resolve() } as unknown as NatsLink;
  const server = new NatsLinkServer(link, []);
  const app = await NestFactory.createMicroservice(IntakeModule, { strategy: server, logger: false });
  await app.listen();
  const controller = app.get(ProbeController);
  const payload = toWireRequest(probeRequest('tcp', { url: 'tcp://127.0.0.1:9' }));
  let answered = 0;
  const msg = {
    subject: 'picket.probe.eu-west-1',
    reply: '_INBOX.bench',
    headers: undefined,
    json: () => structuredClone(payload),
    respond: () => {
      answered += 1;
      return true;
    },
  } as unknown as Msg;
  // ServerNats' own handleMessage, which NatsLinkServer overrides for requests.
  const nestOwn = (m: Msg) => ServerNats.prototype.handleMessage.call(server, PROBE_PATTERN, m);

  const paths: [string, () => Promise<void>][] = [
    [
      'ProbeController called directly (a raw subscription)',
      async () => {
        const answer = await controller.probe(msg.json());
        if (answer !== undefined) msg.respond(JSON.stringify(answer));
      },
    ],
    ['NatsLinkServer, short request path (shipped)', () => server.handleMessage(PROBE_PATTERN, msg)],
    ["Nest's own request path", () => nestOwn(msg)],
  ];
  const samples = new Map<string, number[]>(paths.map(([name]) => [name, []]));
  const round = async (run: () => Promise<void>): Promise<number> => {
    const before = process.cpuUsage();
    for (let i = 0; i < perRound; i++) await run();
    // Nest's own path answers on a later tick: let every reply of the round go out.
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.cpuUsage(before);
    return (used.user + used.system) / perRound;
  };
  try {
    for (const [, run] of paths) await round(run); // warm-up
    answered = 0;
    for (let r = 0; r < rounds; r++) {
      for (const [name, run] of paths) samples.get(name)!.push(await round(run));
    }
  } finally {
    await app.close();
  }
  if (answered < rounds * perRound * paths.length * 0.99) {
    throw new Error(`only ${answered} of ${rounds * perRound * paths.length} requests were answered`);
  }
  const direct = percentile(
    [...samples.get(paths[0]![0])!].sort((a, b) => a - b),
    50,
  );
  const rows: Row[] = paths.map(([name]) => {
    const sorted = [...samples.get(name)!].sort((a, b) => a - b);
    const median = percentile(sorted, 50);
    return {
      path: name,
      'µs CPU per message (median)': median,
      'spread (min–max)': `${sorted[0]!.toFixed(2)}–${sorted[sorted.length - 1]!.toFixed(2)}`,
      'over direct, µs': median - direct,
    };
  });
  publish(
    'Agent intake per message',
    `\`npm run bench -- intake\`: CPU per probe request taken, in one process, the probe itself a ` +
      `resolved promise: ${rounds} interleaved rounds of ${perRound} messages per path (BENCH_ROUNDS, ` +
      `BENCH_MESSAGES). Compare "over direct" with the agent's CPU per check (Agent under load).`,
    rows,
  );
}
