import { describe, expect, it } from '@jest/globals';
import { PROBED_TYPES } from '#contracts';
import { IcmpPinger } from './icmp-pinger.js';
import type { ProberTable } from './prober.js';
import { createProberTable } from './probers.js';

describe('the prober table', () => {
  it('has one prober per probed monitor type of the contracts, and nothing else', () => {
    const table = createProberTable({ pinger: IcmpPinger.unavailable('not needed') });
    expect(Object.keys(table).sort()).toEqual([...PROBED_TYPES].sort());
    for (const type of PROBED_TYPES) expect(typeof table[type]).toBe('function');
  });

  it('does not compile without a prober for every type, or with one for a type the contracts lack', () => {
    const prober = (() => Promise.reject(new Error('not called'))) as never;
    // @ts-expect-error ping has no prober
    const missing: ProberTable = { https: prober, tcp: prober };
    // @ts-expect-error gopher is no monitor type
    const extra: ProberTable = { https: prober, tcp: prober, ping: prober, gopher: prober };
    expect([missing, extra]).toHaveLength(2);
  });
});
