import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { METRICS, within, type Registry } from '#runtime';
import { METRICS_REGISTRY } from '../core.module.js';
import { DATA_SOURCE } from '../database/database.js';
import type { DataSource } from 'typeorm';
import { Readiness } from './readiness.service.js';

/** A database round trip slower than this counts as unreachable. */
export const DATABASE_PROBE_TIMEOUT_MS = 2000;
/** A probe's answer is reused this long: readiness probes and scrapes stay cheap under any rate. */
export const DATABASE_PROBE_CACHE_MS = 1000;

interface ProbeOutcome {
  readonly at: number;
  readonly problem: string | null;
}

/**
 * Whether the database answers, for readiness and the `picket_database_up` gauge. At most one
 * `SELECT 1` is in flight at a time and an answer is reused for a second, so however often
 * orchestrators and Prometheus ask, the database sees one tiny query per second at most, and a
 * hanging database cannot pile up pool connections. The gauge reads the last known answer and
 * never waits for the database (`/metrics` must answer during an outage).
 */
@Injectable()
export class DatabaseProbe implements OnApplicationBootstrap {
  private last: ProbeOutcome | null = null;
  private running: Promise<ProbeOutcome> | null = null;
  private migrationsProblem: string | null = 'not checked yet';

  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(METRICS_REGISTRY) registry: Registry,
    readiness: Readiness,
  ) {
    readiness.register({ name: 'database', required: true, problem: () => this.problem() });
    readiness.register({ name: 'migrations', required: true, problem: () => this.migrationsProblem });
    const upNow = () => {
      void this.problem().catch(() => undefined); // refreshes for the next scrape, never awaited
      return this.last?.problem === null ? 1 : 0;
    };
    new Gauge({
      name: METRICS.databaseUp.name,
      help: METRICS.databaseUp.help,
      registers: [registry],
      collect() {
        this.set(upNow());
      },
    });
  }

  /** The schema was migrated before the app was built (DatabaseModule); confirm nothing is left pending. */
  async onApplicationBootstrap(): Promise<void> {
    await this.problem(); // the gauge's first scrape then tells the truth too
    try {
      this.migrationsProblem = (await this.dataSource.showMigrations()) ? 'migrations pending' : null;
    } catch (error) {
      this.migrationsProblem = `could not read the migrations table: ${describe(error)}`;
    }
  }

  /** Null when the database answered a moment ago, otherwise why not. */
  async problem(): Promise<string | null> {
    const now = Date.now();
    if (this.last && now - this.last.at < DATABASE_PROBE_CACHE_MS) return this.last.problem;
    this.running ??= this.roundTrip().finally(() => {
      this.running = null;
    });
    return (await this.running).problem;
  }

  private async roundTrip(): Promise<ProbeOutcome> {
    const query = this.dataSource.query('SELECT 1').then(
      () => null,
      (error: unknown) => `unreachable: ${describe(error)}`,
    );
    const problem = await within(query, DATABASE_PROBE_TIMEOUT_MS, `no answer within ${DATABASE_PROBE_TIMEOUT_MS} ms`);
    this.last = { at: Date.now(), problem };
    return this.last;
  }
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  return typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code} ${message}` : message;
}
