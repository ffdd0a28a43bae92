import { unknownResult, type ProbeRequest, type ProbeResult } from '#contracts';
import { within, type Clock } from '#runtime';
import { SharedDeadlines } from './deadlines.js';
import type { ProberTable } from './prober.js';
import { runProbe } from './run-probe.js';

export interface ExecutorOptions {
  agentId: string;
  clock: Clock;
  table: ProberTable;
  /** Checks run at once at most; more are answered UNKNOWN ("at capacity") at once. */
  maxInFlight: number;
  onBug?: (error: unknown, request: ProbeRequest) => void;
  /** Every finished check, for metrics. */
  onResult?: (result: ProbeResult, request: ProbeRequest) => void;
}

/**
 * Runs checks for an agent (or the embedded agent in the coordinator): bounds concurrency,
 * and on shutdown drains — new work is refused, running checks get a grace period, then
 * are cancelled and reported UNKNOWN.
 */
export class ProbeExecutor {
  private running = 0;
  private draining = false;
  private readonly shutdown = new AbortController();
  /** The checks of one batch (started in one tick) with the same timeout share a deadline. */
  private readonly deadlines = new SharedDeadlines();
  private idle: (() => void)[] = [];

  constructor(private readonly options: ExecutorOptions) {}

  get inFlight(): number {
    return this.running;
  }

  get maxInFlight(): number {
    return this.options.maxInFlight;
  }

  async execute(request: ProbeRequest): Promise<ProbeResult> {
    const { agentId, clock } = this.options;
    if (this.draining) return unknownResult(request, 'agent is shutting down', agentId, clock.now());
    if (this.running >= this.options.maxInFlight) {
      return unknownResult(
        request,
        `agent at capacity (${this.options.maxInFlight} checks in flight)`,
        agentId,
        clock.now(),
      );
    }
    this.running++;
    try {
      const result = await runProbe(this.options.table, request, {
        agentId,
        clock,
        signal: this.shutdown.signal,
        onBug: this.options.onBug,
        deadlines: this.deadlines,
      });
      this.options.onResult?.(result, request);
      return result;
    } finally {
      this.running--;
      if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Refuses new work, waits up to `graceMs` for running checks, then cancels the rest. */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.running === 0) return;
    const idle = new Promise<void>((resolve) => this.idle.push(resolve));
    if ((await within(idle, graceMs, 'timeout')) === 'timeout') {
      this.shutdown.abort(new Error('agent stopping'));
      await idle;
    }
  }
}
