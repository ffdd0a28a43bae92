/**
 * A signal for one short operation that also aborts when a long-lived `parent` does (an
 * agent's or dispatcher's shutdown), and on `abort(reason)` (a deadline). Call `release()`
 * when the operation ends.
 *
 * Not `AbortSignal.any([own, parent])`: in Node 20 that adds an entry to the parent for every
 * call which is never collected while the parent lives (about 50 bytes a check, gigabytes a
 * day at hundreds of checks a second). Nor one listener per operation on the parent: with
 * more than 10 operations in flight Node warns of a listener leak. The parent gets one
 * listener, which aborts the operations in flight; `release()` forgets one.
 */
export interface ScopedAbort {
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
  release(): void;
}

/** The operations in flight under each parent (one abort listener per parent). */
const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

function operationsOf(parent: AbortSignal): Set<AbortController> {
  let operations = inFlight.get(parent);
  if (operations === undefined) {
    const created = new Set<AbortController>();
    parent.addEventListener(
      'abort',
      () => {
        for (const operation of created) operation.abort(parent.reason);
        created.clear();
      },
      { once: true },
    );
    inFlight.set(parent, created);
    operations = created;
  }
  return operations;
}

export function scopedAbort(parent?: AbortSignal): ScopedAbort {
  const controller = new AbortController();
  const scope = {
    signal: controller.signal,
    abort: (reason: unknown) => controller.abort(reason),
    release: () => undefined,
  };
  if (parent?.aborted) controller.abort(parent.reason);
  else if (parent) {
    const operations = operationsOf(parent);
    operations.add(controller);
    scope.release = () => {
      operations.delete(controller);
    };
  }
  return scope;
}

/** How many operations are in flight under `parent` (tests). */
export function operationsInFlight(parent: AbortSignal): number {
  return inFlight.get(parent)?.size ?? 0;
}
