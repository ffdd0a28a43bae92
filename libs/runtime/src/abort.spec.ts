import { describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { operationsInFlight, scopedAbort } from './abort.js';

describe('scopedAbort', () => {
  it('aborts with its own reason, leaving the parent alone', () => {
    const parent = new AbortController();
    const scope = scopedAbort(parent.signal);
    scope.abort('deadline');
    expect([scope.signal.aborted, scope.signal.reason, parent.signal.aborted]).toEqual([true, 'deadline', false]);
    scope.release();
  });

  it('follows the parent, with the parent’s reason, also when it was aborted already', () => {
    const parent = new AbortController();
    const scope = scopedAbort(parent.signal);
    parent.abort('shutdown');
    expect([scope.signal.aborted, scope.signal.reason]).toEqual([true, 'shutdown']);
    const late = scopedAbort(parent.signal);
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, 'shutdown']);
  });

  it('leaves nothing behind on a long-lived parent once released (AbortSignal.any did, per call)', () => {
    const parent = new AbortController();
    for (let i = 0; i < 10_000; i++) scopedAbort(parent.signal).release();
    expect(operationsInFlight(parent.signal)).toBe(0);
    const open = scopedAbort(parent.signal);
    expect(operationsInFlight(parent.signal)).toBe(1);
    open.release();
    expect(operationsInFlight(parent.signal)).toBe(0);
  });

  it('gives a parent one listener however many operations it holds (Node warns past 10)', () => {
    const parent = new AbortController();
    const open = Array.from({ length: 50 }, () => scopedAbort(parent.signal));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    open[7]!.release();
    parent.abort('shutdown');
    expect(open.filter((scope) => scope.signal.aborted)).toHaveLength(49); // not the released one
    expect(open[0]!.signal.reason).toBe('shutdown');
  });

  it('works without a parent', () => {
    const scope = scopedAbort();
    expect(scope.signal.aborted).toBe(false);
    scope.abort(new Error('timeout'));
    expect(scope.signal.aborted).toBe(true);
    scope.release();
  });
});
