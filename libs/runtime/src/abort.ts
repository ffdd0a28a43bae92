/**
 * A signal for one short operation that also aborts when a long-lived `parent` does (an
 * agent's or dispatcher's shutdown), and on `abort(reason)` (a deadline). Call `release()`
 * when the operation ends.
 *
 * Not `AbortSignal.any([own, parent])`: in Node 20 that adds an entry to the parent for every
 * call which is never collected while the parent lives (about 50 bytes a check, gigabytes a
 * day at hundreds of checks a second). This adds one listener and removes it on release.
 */
export interface ScopedAbort {
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
  release(): void;
}

export function scopedAbort(parent?: AbortSignal): ScopedAbort {
  const controller = new AbortController();
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    release: () => parent?.removeEventListener('abort', follow),
  };
}
