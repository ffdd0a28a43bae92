import type { ProbeRequest, ProbeResult } from '#contracts';

/** How long an agent collects finished checks of a batch into one reply (docs/decisions/0034-batched-probe-traffic.md). */
export const REPLY_WINDOW_MS = 5;

/** One-shot timers (setTimeout by default; tests pass manual ones). */
export interface BatchTimers {
  set(fn: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: BatchTimers = {
  set: (fn, delayMs) => setTimeout(fn, delayMs),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs a batch's checks together (one wakeup starts them all) and hands their results to `send`
 * as they finish, coalesced: the results that finish within `windowMs` of the first one not sent
 * yet go in one call, and the last check's result is sent at once with whatever waits. Resolves
 * after the last `send`. Never rejects: `execute` answers every request (ProbeExecutor does).
 */
export function runProbeBatch(
  execute: (request: ProbeRequest) => Promise<ProbeResult>,
  requests: readonly ProbeRequest[],
  send: (results: ProbeResult[]) => void,
  windowMs: number = REPLY_WINDOW_MS,
  timers: BatchTimers = realTimers,
): Promise<void> {
  if (requests.length === 0) return Promise.resolve();
  return new Promise<void>((done) => {
    let left = requests.length;
    let pending: ProbeResult[] = [];
    let timer: unknown = null;
    const flush = () => {
      if (timer !== null) timers.clear(timer);
      timer = null;
      const results = pending;
      pending = [];
      try {
        if (results.length > 0) send(results);
      } catch {
        // Not sent (the link closed under it): the coordinator's deadline makes these checks UNKNOWN.
      } finally {
        if (left === 0) done();
      }
    };
    const finished = (result: ProbeResult) => {
      left--;
      pending.push(result);
      if (left === 0) flush();
      else timer ??= timers.set(flush, windowMs);
    };
    for (const request of requests) void execute(request).then(finished);
  });
}
