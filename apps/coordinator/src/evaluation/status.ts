import { isDecided, type CheckStatus, type ResultRegion } from '#contracts';

/**
 * How results decide a monitor's status (docs/decisions/0005-checks-and-status.md), as one pure
 * function: (state, result, failThreshold) → (state, events, confirm).
 *
 * - UNKNOWN never counts: nothing changes, no event, no confirmation.
 * - Results are applied in scheduled order. A result whose scheduledAt is not newer than the
 *   newest one applied (`lastScheduledAt`) is ignored for evaluation: it arrived late (a slow
 *   region, a partition that healed) or twice (a duplicate reply). It is still stored in the
 *   check history by the caller; it just cannot rewrite a decision taken on newer evidence.
 *   The scheduler gives every check of a monitor a distinct scheduledAt, so "not newer" means
 *   "older or the same check again". UNKNOWN results do not move `lastScheduledAt`.
 * - DOWN: `consecutiveDown` + 1. Reaching `failThreshold` while not down → down. Below it
 *   and not down → `confirm`: the caller asks the scheduler for the next region at once.
 * - UP: `consecutiveDown` = 0; pending → up and down → up change status; up → up does not.
 */

export type MonitorStatus = 'pending' | 'up' | 'down';

export interface MonitorState {
  readonly status: MonitorStatus;
  /** DOWN results in a row (in scheduled order, across regions) since the last UP. */
  readonly consecutiveDown: number;
  /** When status last changed (Unix seconds): the monitor's last_status_change. */
  readonly lastChange: number;
  /** scheduledAt (ms) of the newest result applied; 0 before any. */
  readonly lastScheduledAt: number;
}

/** A check result as evaluation sees it. */
export interface CheckOutcome {
  readonly status: CheckStatus;
  /** When the check was due (ms since the epoch): its place in the monitor's order. */
  readonly scheduledAt: number;
  /** When the coordinator received the result (ms since the epoch). Status changes are dated by it. */
  readonly checkedAt: number;
  readonly region: ResultRegion;
}

/** The monitor's status changed. */
export interface StatusChangedEvent {
  readonly type: 'status_changed';
  readonly from: MonitorStatus;
  readonly to: 'up' | 'down';
  /** Unix seconds: the deciding check's checkedAt. */
  readonly at: number;
  /** The deciding check. */
  readonly region: ResultRegion;
  readonly scheduledAt: number;
}

/** What evaluation reports; a discriminated union on `type`, to grow (incidents, certificates). */
export type MonitorEvent = StatusChangedEvent;

export type IgnoredBecause = 'unknown' | 'blocked' | 'out_of_order';

export interface Evaluation {
  readonly state: MonitorState;
  readonly events: readonly MonitorEvent[];
  /** Ask the scheduler to check from the next region now (confirmation of a DOWN). */
  readonly confirm: boolean;
  /** Why the result changed nothing, or null when it was applied. */
  readonly ignored: IgnoredBecause | null;
}

/** A monitor's state as stored: status and last change, no run of DOWNs, nothing applied yet. */
export function initialState(status: MonitorStatus, lastChange: number): MonitorState {
  return { status, consecutiveDown: 0, lastChange, lastScheduledAt: 0 };
}

export function evaluate(state: MonitorState, result: CheckOutcome, failThreshold: number): Evaluation {
  if (!Number.isSafeInteger(failThreshold) || failThreshold < 1) {
    throw new RangeError(`failThreshold must be a positive integer, got ${failThreshold}`);
  }
  if (!isDecided(result.status)) return ignore(state, result.status);
  if (result.scheduledAt <= state.lastScheduledAt) return ignore(state, 'out_of_order');

  const at = Math.floor(result.checkedAt / 1000);
  const change = (to: 'up' | 'down'): MonitorEvent => ({
    type: 'status_changed',
    from: state.status,
    to,
    at,
    region: result.region,
    scheduledAt: result.scheduledAt,
  });

  if (result.status === 'up') {
    const changed = state.status !== 'up';
    return {
      state: {
        status: 'up',
        consecutiveDown: 0,
        lastChange: changed ? at : state.lastChange,
        lastScheduledAt: result.scheduledAt,
      },
      events: changed ? [change('up')] : [],
      confirm: false,
      ignored: null,
    };
  }

  const consecutiveDown = state.consecutiveDown + 1;
  const next = { ...state, consecutiveDown, lastScheduledAt: result.scheduledAt };
  if (state.status === 'down') return { state: next, events: [], confirm: false, ignored: null };
  if (consecutiveDown >= failThreshold) {
    return {
      state: { ...next, status: 'down', lastChange: at },
      events: [change('down')],
      confirm: false,
      ignored: null,
    };
  }
  return { state: next, events: [], confirm: true, ignored: null };
}

function ignore(state: MonitorState, because: IgnoredBecause): Evaluation {
  return { state, events: [], confirm: false, ignored: because };
}
