import { describe, expect, it } from '@jest/globals';
import { testDeps } from '../../../../test/support/notify-kit.js';
import { CHANNELS } from '../contacts/channels.js';
import type { NotifierTable } from './notifier.js';
import { createNotifierTable } from './notifiers.js';

describe('the notifier table', () => {
  it('has one notifier per channel of the channel table, and nothing else', async () => {
    const table = createNotifierTable(await testDeps());
    expect(Object.keys(table)).toEqual([...CHANNELS]);
    for (const channel of CHANNELS) expect(typeof table[channel].deliver).toBe('function');
    for (const notifier of Object.values(table)) await notifier.close?.();
  });

  it('does not compile without a notifier for every channel, or with one for a channel the table lacks', () => {
    const notifier = { deliver: () => Promise.reject(new Error('not called')) } as never;
    const all = Object.fromEntries(CHANNELS.map((channel) => [channel, notifier])) as unknown as NotifierTable;
    const { push: _push, ...withoutPush } = all;
    // @ts-expect-error push has no notifier
    const missing: NotifierTable = withoutPush;
    // @ts-expect-error sms is no channel
    const extra: NotifierTable = { ...all, sms: notifier };
    expect([missing, extra]).toHaveLength(2);
  });
});
