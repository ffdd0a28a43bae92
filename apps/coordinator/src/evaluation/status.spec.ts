import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { CheckStatus, RegionId } from '#contracts';
import { evaluate, initialState, type CheckOutcome, type MonitorEvent, type MonitorState } from './status.js';

const A: RegionId = 'us-east-1';
const B: RegionId = 'eu-west-1';
const C: RegionId = 'ap-southeast-1';
const T0 = Date.UTC(2026, 0, 1); // ms
const CREATED = T0 / 1000 - 3600; // unix s

type Step = [CheckStatus, RegionId];

/** Plays results 20 s apart (scheduledAt), each checked 100 ms after it was due. */
function play(start: MonitorState, failThreshold: number, steps: Step[]) {
  let state = start;
  return steps.map(([status, region], i) => {
    const scheduledAt = T0 + i * 20_000;
    const evaluation = evaluate(state, { status, region, scheduledAt, checkedAt: scheduledAt + 100 }, failThreshold);
    state = evaluation.state;
    return {
      status: evaluation.state.status,
      down: evaluation.state.consecutiveDown,
      confirm: evaluation.confirm,
      events: evaluation.events.map((e) => `${e.from}→${e.to}`),
    };
  });
}

const up = initialState('up', CREATED);
const pending = initialState('pending', CREATED);
const down: MonitorState = { status: 'down', consecutiveDown: 2, lastChange: CREATED, lastScheduledAt: 0 };

describe('evaluate', () => {
  it.each([
    {
      name: 'fail_threshold 2, A down → confirm; B down → down',
      start: up,
      threshold: 2,
      steps: [
        ['down', A],
        ['down', B],
      ] as Step[],
      trace: [
        { status: 'up', down: 1, confirm: true, events: [] },
        { status: 'down', down: 2, confirm: false, events: ['up→down'] },
      ],
    },
    {
      name: 'fail_threshold 2, A down, B up → stays up',
      start: up,
      threshold: 2,
      steps: [
        ['down', A],
        ['up', B],
        ['down', A],
      ] as Step[],
      trace: [
        { status: 'up', down: 1, confirm: true, events: [] },
        { status: 'up', down: 0, confirm: false, events: [] },
        { status: 'up', down: 1, confirm: true, events: [] },
      ],
    },
    {
      name: 'UNKNOWN between two DOWNs neither resets nor counts',
      start: up,
      threshold: 2,
      steps: [
        ['down', A],
        ['unknown', B],
        ['down', A],
      ] as Step[],
      trace: [
        { status: 'up', down: 1, confirm: true, events: [] },
        { status: 'up', down: 1, confirm: false, events: [] },
        { status: 'down', down: 2, confirm: false, events: ['up→down'] },
      ],
    },
    {
      name: 'BLOCKED (egress policy) results never turn a monitor down, nor up from pending',
      start: pending,
      threshold: 1,
      steps: [
        ['blocked', A],
        ['blocked', B],
      ] as Step[],
      trace: [
        { status: 'pending', down: 0, confirm: false, events: [] },
        { status: 'pending', down: 0, confirm: false, events: [] },
      ],
    },
    {
      name: 'UNKNOWNs alone never turn a monitor down, nor up',
      start: up,
      threshold: 1,
      steps: [
        ['unknown', A],
        ['unknown', B],
        ['unknown', C],
      ] as Step[],
      trace: [
        { status: 'up', down: 0, confirm: false, events: [] },
        { status: 'up', down: 0, confirm: false, events: [] },
        { status: 'up', down: 0, confirm: false, events: [] },
      ],
    },
    {
      name: 'fail_threshold 1: one DOWN is down, no confirmation',
      start: up,
      threshold: 1,
      steps: [
        ['down', A],
        ['down', B],
        ['up', C],
      ] as Step[],
      trace: [
        { status: 'down', down: 1, confirm: false, events: ['up→down'] },
        { status: 'down', down: 2, confirm: false, events: [] },
        { status: 'up', down: 0, confirm: false, events: ['down→up'] },
      ],
    },
    {
      name: 'fail_threshold 3 across three regions',
      start: up,
      threshold: 3,
      steps: [
        ['down', A],
        ['down', B],
        ['down', C],
        ['down', A],
      ] as Step[],
      trace: [
        { status: 'up', down: 1, confirm: true, events: [] },
        { status: 'up', down: 2, confirm: true, events: [] },
        { status: 'down', down: 3, confirm: false, events: ['up→down'] },
        { status: 'down', down: 4, confirm: false, events: [] },
      ],
    },
    {
      name: 'pending → up on the first UP; up → up is quiet',
      start: pending,
      threshold: 2,
      steps: [
        ['unknown', A],
        ['up', B],
        ['up', C],
      ] as Step[],
      trace: [
        { status: 'pending', down: 0, confirm: false, events: [] },
        { status: 'up', down: 0, confirm: false, events: ['pending→up'] },
        { status: 'up', down: 0, confirm: false, events: [] },
      ],
    },
    {
      name: 'pending → down after fail_threshold DOWNs, with confirmation before',
      start: pending,
      threshold: 2,
      steps: [
        ['down', A],
        ['down', B],
      ] as Step[],
      trace: [
        { status: 'pending', down: 1, confirm: true, events: [] },
        { status: 'down', down: 2, confirm: false, events: ['pending→down'] },
      ],
    },
    {
      name: 'down → up on one UP; while down, DOWNs ask for no confirmation',
      start: down,
      threshold: 3,
      steps: [
        ['down', A],
        ['unknown', B],
        ['up', C],
        ['down', A],
      ] as Step[],
      trace: [
        { status: 'down', down: 3, confirm: false, events: [] },
        { status: 'down', down: 3, confirm: false, events: [] },
        { status: 'up', down: 0, confirm: false, events: ['down→up'] },
        { status: 'up', down: 1, confirm: true, events: [] },
      ],
    },
  ])('$name', ({ start, threshold, steps, trace }) => {
    expect(play(start, threshold, steps)).toEqual(trace);
  });

  it('dates a change by the deciding check, in Unix seconds, and names that check', () => {
    const result: CheckOutcome = { status: 'down', region: B, scheduledAt: T0 + 5_000, checkedAt: T0 + 5_999 };
    const evaluation = evaluate(up, result, 1);
    const expected: MonitorEvent[] = [
      { type: 'status_changed', from: 'up', to: 'down', at: T0 / 1000 + 5, region: B, scheduledAt: T0 + 5_000 },
    ];
    expect(evaluation.events).toEqual(expected);
    expect(evaluation.state).toEqual({
      status: 'down',
      consecutiveDown: 1,
      lastChange: T0 / 1000 + 5,
      lastScheduledAt: T0 + 5_000,
    });
    expect(evaluation.ignored).toBeNull();
    // No change, no new lastChange.
    const again = evaluate(evaluation.state, { ...result, scheduledAt: T0 + 6_000, checkedAt: T0 + 70_000 }, 1);
    expect(again.state.lastChange).toBe(T0 / 1000 + 5);
  });

  it('ignores results not newer than the newest applied one (late or duplicate), but not after UNKNOWN', () => {
    const at = (scheduledAt: number, status: CheckStatus, region: RegionId = A): CheckOutcome => ({
      status,
      region,
      scheduledAt,
      checkedAt: scheduledAt + 50,
    });
    const first = evaluate(up, at(T0 + 3_000, 'down'), 2);
    expect(first.confirm).toBe(true);

    const late = evaluate(first.state, at(T0 + 2_000, 'up', B), 2);
    expect(late).toEqual({ state: first.state, events: [], confirm: false, ignored: 'out_of_order' });
    const duplicate = evaluate(first.state, at(T0 + 3_000, 'down'), 2);
    expect(duplicate).toEqual({ state: first.state, events: [], confirm: false, ignored: 'out_of_order' });

    // UNKNOWN does not move lastScheduledAt: an older DOWN still counts after a newer UNKNOWN.
    const unknown = evaluate(first.state, at(T0 + 9_000, 'unknown', C), 2);
    expect(unknown).toEqual({ state: first.state, events: [], confirm: false, ignored: 'unknown' });
    const confirmed = evaluate(unknown.state, at(T0 + 5_000, 'down', B), 2);
    expect(confirmed.state.status).toBe('down');
  });

  it('takes the threshold in force at each result', () => {
    const one = evaluate(up, { status: 'down', region: A, scheduledAt: T0, checkedAt: T0 }, 3);
    expect(one.state.status).toBe('up');
    const lowered = evaluate(one.state, { status: 'down', region: B, scheduledAt: T0 + 1, checkedAt: T0 + 1 }, 1);
    expect(lowered.state.status).toBe('down');
  });

  it('never mutates the state it is given', () => {
    const frozen = Object.freeze({ ...up });
    expect(() => evaluate(frozen, { status: 'down', region: A, scheduledAt: T0, checkedAt: T0 }, 1)).not.toThrow();
    expect(frozen).toEqual(up);
  });

  it('refuses a threshold below 1', () => {
    const result: CheckOutcome = { status: 'up', region: A, scheduledAt: T0, checkedAt: T0 };
    expect(() => evaluate(up, result, 0)).toThrow(RangeError);
    expect(() => evaluate(up, result, 1.5)).toThrow(RangeError);
  });

  describe('properties', () => {
    const statuses = fc.constantFrom<CheckStatus>('up', 'down', 'unknown', 'blocked');
    const starts = fc.constantFrom(up, pending, down);
    const thresholds = fc.integer({ min: 1, max: 5 });

    function run(start: MonitorState, threshold: number, statuses: CheckStatus[]) {
      let state = start;
      const events: string[] = [];
      statuses.forEach((status, i) => {
        const scheduledAt = T0 + i * 1000;
        const evaluation = evaluate(state, { status, region: A, scheduledAt, checkedAt: scheduledAt }, threshold);
        state = evaluation.state;
        events.push(...evaluation.events.map((e) => `${e.from}→${e.to}@${e.scheduledAt}`));
      });
      return { status: state.status, consecutiveDown: state.consecutiveDown, events };
    }

    it('UNKNOWN and BLOCKED results change nothing wherever they fall', () => {
      fc.assert(
        fc.property(starts, thresholds, fc.array(statuses, { maxLength: 30 }), (start, threshold, sequence) => {
          // Same positions (so the same scheduledAt), UNKNOWNs and BLOCKEDs replaced by nothing at all.
          let state = start;
          const events: string[] = [];
          sequence.forEach((status, i) => {
            if (status === 'unknown' || status === 'blocked') return;
            const scheduledAt = T0 + i * 1000;
            const evaluation = evaluate(state, { status, region: A, scheduledAt, checkedAt: scheduledAt }, threshold);
            state = evaluation.state;
            events.push(...evaluation.events.map((e) => `${e.from}→${e.to}@${e.scheduledAt}`));
          });
          expect(run(start, threshold, sequence)).toEqual({
            status: state.status,
            consecutiveDown: state.consecutiveDown,
            events,
          });
        }),
        { seed: 4, numRuns: 300 },
      );
    });

    it('turns down exactly when the last fail_threshold verdicts are all DOWN', () => {
      fc.assert(
        fc.property(thresholds, fc.array(statuses, { maxLength: 30 }), (threshold, sequence) => {
          const outcome = run(up, threshold, sequence);
          const verdicts = sequence.filter((s) => s === 'up' || s === 'down');
          const lastUp = verdicts.lastIndexOf('up');
          const downsSinceUp = verdicts.length - lastUp - 1;
          expect(outcome.consecutiveDown).toBe(downsSinceUp);
          expect(outcome.status).toBe(downsSinceUp >= threshold ? 'down' : 'up');
        }),
        { seed: 5, numRuns: 300 },
      );
    });
  });
});
