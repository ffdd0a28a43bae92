import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import { ManualTimers, pauseUnlessStopped, systemTimers } from './timers.js';

describe('timers', () => {
  it('systemTimers runs a callback once and clear() cancels one', async () => {
    const ran: string[] = [];
    const cancelled = systemTimers.set(() => ran.push('cancelled'), 0);
    systemTimers.clear(cancelled);
    await new Promise<void>((resolve) =>
      systemTimers.set(() => {
        ran.push('ran');
        resolve();
      }, 0),
    );
    expect(ran).toEqual(['ran']);
  });

  it('ManualTimers.advance runs timers at their own time, in order, including ones set meanwhile', () => {
    const clock = new ManualClock(1_000);
    const timers = new ManualTimers(clock);
    const log: [string, number][] = [];
    timers.set(() => log.push(['b', clock.now()]), 20);
    timers.set(() => {
      log.push(['a', clock.now()]);
      timers.set(() => log.push(['a2', clock.now()]), 5);
    }, 10);
    const dropped = timers.set(() => log.push(['never', clock.now()]), 15);
    timers.clear(dropped);
    timers.advance(30);
    expect(log).toEqual([
      ['a', 1_010],
      ['a2', 1_015],
      ['b', 1_020],
    ]);
    expect(clock.now()).toBe(1_030);
    expect(timers.sets).toBe(4);
    expect(timers.maxActive).toBe(3);
    expect(timers.active).toBe(0);
  });

  it('ManualTimers.jump moves the clock first, then runs what is overdue, late', () => {
    const clock = new ManualClock(1_000);
    const timers = new ManualTimers(clock);
    const log: number[] = [];
    timers.set(() => log.push(clock.now()), 10);
    timers.set(() => log.push(clock.now()), 500);
    timers.jump(100);
    expect(log).toEqual([1_100]);
    expect(timers.active).toBe(1);
  });

  it('pauseUnlessStopped resolves after its delay, and rejects when its owner stopped before or during it', async () => {
    const timers = new ManualTimers(new ManualClock(0));
    let stopped = false;
    const outcome = (pause: Promise<void>) =>
      pause.then(
        () => 'resolved',
        (error: unknown) => `rejected: ${String(error)}`,
      );
    const states: string[] = [];
    const track = (pause: Promise<void>) => void outcome(pause).then((state) => states.push(state));

    track(pauseUnlessStopped(timers, 25, () => stopped));
    timers.advance(24);
    await Promise.resolve();
    expect(states).toEqual([]);
    timers.advance(1);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(states).toEqual(['resolved']);

    track(pauseUnlessStopped(timers, 25, () => stopped));
    stopped = true; // during the pause
    timers.advance(25);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(states).toEqual(['resolved', 'rejected: Error: stopping']);

    track(pauseUnlessStopped(timers, 25, () => stopped)); // already stopped: no timer, at once
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(states).toEqual(['resolved', 'rejected: Error: stopping', 'rejected: Error: stopping']);
    expect(timers.active).toBe(0);
  });
});
