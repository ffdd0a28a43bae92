import { setMaxListeners } from 'node:events';
import { scopedAbort, type ScopedAbort } from '#runtime';
import { ProbeDeadline } from './prober.js';

/** A check's deadline: its signal, and `release()` when the check is over. */
export interface Deadline {
  readonly signal: AbortSignal;
  release(): void;
}

interface Group {
  readonly parent: AbortSignal | undefined;
  readonly scope: ScopedAbort;
  readonly timer: ReturnType<typeof setTimeout>;
  holders: number;
}

/**
 * Deadlines for checks, shared by the checks that start in the same tick with the same timeout
 * (a batch from the coordinator starts all its checks in one tick, and most monitors share a
 * few timeouts): one AbortController and one timer per group instead of one per check. They
 * would abort at the same moment anyway; an AbortController and its signal were the largest
 * single cost of a ping's own JavaScript (docs/decisions/0050-shared-check-deadlines.md).
 *
 * A group takes checks only until the current tick's microtasks run; a check that starts later
 * gets a group of its own, so no check's deadline is ever shorter than its timeout. The signal
 * aborts with a `ProbeDeadline` when the timeout passes, or with the parent's reason when the
 * parent (the agent's shutdown) aborts; the timer is cleared and the parent forgotten when the
 * group's last check releases it. Probers only listen to the signal (they never abort it), so
 * one check cannot end another's; the signal takes any number of listeners without Node's leak
 * warning.
 */
export class SharedDeadlines {
  private readonly open = new Map<number, Group>();
  private closing = false;

  take(timeoutMs: number, parent?: AbortSignal): Deadline {
    let group = this.open.get(timeoutMs);
    if (group === undefined || group.parent !== parent) {
      group = openGroup(timeoutMs, parent);
      this.open.set(timeoutMs, group);
      this.closeAtEndOfTick();
    }
    const held = group;
    held.holders++;
    let released = false;
    return {
      signal: held.scope.signal,
      release: () => {
        if (released) return;
        released = true;
        if (--held.holders > 0) return;
        clearTimeout(held.timer);
        held.scope.release();
      },
    };
  }

  /** Groups take checks of the current tick only. */
  private closeAtEndOfTick(): void {
    if (this.closing) return;
    this.closing = true;
    queueMicrotask(() => {
      this.open.clear();
      this.closing = false;
    });
  }
}

function openGroup(timeoutMs: number, parent: AbortSignal | undefined): Group {
  const scope = scopedAbort(parent);
  setMaxListeners(0, scope.signal);
  const timer = setTimeout(() => scope.abort(new ProbeDeadline(timeoutMs)), timeoutMs);
  return { parent, scope, timer, holders: 0 };
}
