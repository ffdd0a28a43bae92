import { describe, expect, it } from '@jest/globals';
import { QueryClient } from '@tanstack/react-query';
import { applyStatusEvent, onStatusEvent, parseStatusEvent } from './live.ts';
import type { Monitor } from './monitors.ts';

const base = (id: string, status: Monitor['last_status'], change: number): Monitor => ({
  id,
  name: id,
  active: true,
  check_interval: 300,
  timeout: 10,
  fail_threshold: 2,
  regions: ['eu-west-1'],
  settings: { https: { url: 'https://example.com/' } },
  contacts: [],
  last_status: status,
  last_status_change: change,
  last_checked_at: change,
  created_at: 1,
  updated_at: 1,
});

describe('live status events', () => {
  it.each([
    ['{"monitor_id":"a","status":"down","changed_at":5}', { monitor_id: 'a', status: 'down', changed_at: 5 }],
    ['{"monitor_id":"a","status":"unknown","changed_at":5}', null],
    ['{"monitor_id":1,"status":"up","changed_at":5}', null],
    ['{"monitor_id":"a","status":"up"}', null],
    ['not json', null],
  ])('reads %s', (data, event) => {
    expect(parseStatusEvent(data)).toEqual(event);
  });

  it('applies a change to its monitor only, and never an older one', () => {
    const list = [base('a', 'up', 10), base('b', 'up', 10)];
    const changed = applyStatusEvent(list, { monitor_id: 'b', status: 'down', changed_at: 20 });
    expect(changed.map((m) => [m.id, m.last_status, m.last_status_change, m.last_checked_at])).toEqual([
      ['a', 'up', 10, 10],
      ['b', 'down', 20, 20],
    ]);
    expect(changed[0]).toBe(list[0]);
    expect(applyStatusEvent(list, { monitor_id: 'b', status: 'down', changed_at: 5 })).toBe(list);
    expect(applyStatusEvent(list, { monitor_id: 'z', status: 'down', changed_at: 20 })).toBe(list);
  });

  it('updates the cached list in place and marks the monitor, the counts and incidents stale', async () => {
    const client = new QueryClient();
    client.setQueryData(['monitors', 'all'], [base('a', 'up', 10)]);
    for (const key of [['monitor', 'a'], ['account'], ['incidents', false], ['monitor', 'b']]) {
      client.setQueryData(key, {});
    }
    const deferred: (() => void)[] = [];
    const later = ((fn: () => void) => deferred.push(fn)) as unknown as typeof setTimeout;
    onStatusEvent(client, { monitor_id: 'a', status: 'down', changed_at: 30 }, later);
    expect(client.getQueryData<Monitor[]>(['monitors', 'all'])?.[0]?.last_status).toBe('down');
    const stale = (key: unknown[]) => client.getQueryState(key)?.isInvalidated;
    expect([stale(['monitor', 'a']), stale(['account']), stale(['incidents', false]), stale(['monitor', 'b'])]).toEqual(
      [true, true, true, false],
    );
    client.clear();
  });
});
