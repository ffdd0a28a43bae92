import { describe, expect, it } from '@jest/globals';
import { QueryClient, QueryObserver } from '@tanstack/react-query';
import {
  applyStatusEvent,
  onStatusEvent,
  onStreamReady,
  parseReady,
  parseStatusEvent,
  rememberEvent,
  withEventsSince,
} from './live.ts';
import type { Monitor, MonitorSummary, MonitorSummaryPage } from './monitors.ts';

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

const summaryRow = (id: string, extra: Partial<MonitorSummary> = {}): MonitorSummary => ({
  id,
  name: id,
  type: 'https',
  target: 'https://example.com/',
  active: true,
  last_status: 'up',
  in_maintenance: false,
  status: 'up',
  last_status_change: 10,
  last_checked_at: 10,
  created_at: 1,
  uptime_24h: 100,
  uptime_30d: 100,
  response_ms: [],
  ...extra,
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

  it('applies to a summary the events received since its request was sent, and no earlier ones', () => {
    const page: MonitorSummaryPage = {
      generated_at: 20,
      sparkline_from: 0,
      counts: { total: 2, up: 2, down: 0, unknown: 0, pending: 0, paused: 0, maintenance: 0 },
      monitors: [summaryRow('x'), summaryRow('y')],
    };
    rememberEvent({ monitor_id: 'x', status: 'down', changed_at: 40 }, 1_000);
    rememberEvent({ monitor_id: 'y', status: 'down', changed_at: 50 }, 2_000);
    const after = withEventsSince(page, 1_500).monitors.map((m) => m.last_status);
    expect(after).toEqual(['up', 'down']);
    expect(withEventsSince(page, 3_000)).toBe(page);
  });

  it('changes the overview summary row in place; paused and maintenance still win over the new status', () => {
    const client = new QueryClient();
    const counts = { total: 2, up: 1, down: 0, unknown: 0, pending: 0, paused: 0, maintenance: 1 };
    const page: MonitorSummaryPage = {
      generated_at: 20,
      sparkline_from: 0,
      counts,
      monitors: [summaryRow('a'), summaryRow('b', { in_maintenance: true, status: 'maintenance' })],
    };
    client.setQueryData(['monitors', 'summary'], page);
    const later = (() => 0) as unknown as typeof setTimeout;
    onStatusEvent(client, { monitor_id: 'a', status: 'down', changed_at: 30 }, later);
    onStatusEvent(client, { monitor_id: 'b', status: 'down', changed_at: 30 }, later);
    const after = client.getQueryData<MonitorSummaryPage>(['monitors', 'summary'])?.monitors;
    expect(after?.map((m) => [m.last_status, m.status, m.last_status_change])).toEqual([
      ['down', 'down', 30],
      ['down', 'maintenance', 30],
    ]);
    client.clear();
  });
});

describe('onStreamReady', () => {
  const key = ['monitors', 'summary'];
  const page = (...changes: number[]): MonitorSummaryPage => ({
    generated_at: 100,
    sparkline_from: 0,
    counts: { total: changes.length, up: changes.length, down: 0, unknown: 0, pending: 0, paused: 0, maintenance: 0 },
    monitors: changes.map((change, i) => summaryRow(`m${i}`, { last_status_change: change })),
  });
  /** A summary query with an observer (as the overview's): reads answer the pages given, when told. */
  function watched(client: QueryClient, answers: MonitorSummaryPage[]) {
    const reads: (() => void)[] = [];
    const observer = new QueryObserver(client, {
      queryKey: key,
      queryFn: () =>
        new Promise<MonitorSummaryPage>((resolve) => {
          const answer = answers[reads.length]!;
          reads.push(() => resolve(answer));
        }),
    });
    const stop = observer.subscribe(() => undefined);
    return { reads, stop };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it("reads the stream's ready event", () => {
    expect(parseReady('{"last_status_change":1700000000}')).toBe(1_700_000_000);
    expect(parseReady('{"last_status_change":null}')).toBeNull();
    expect(parseReady('{}')).toBeNull();
    expect(parseReady('not json')).toBeNull();
  });

  it('reads nothing when no summary was asked for (it will be asked after the stream is ready)', async () => {
    const client = new QueryClient();
    await onStreamReady(client, 50);
    expect(client.getQueryState(key)).toBeUndefined();
  });

  it('reads the summary again when the stream knows a newer change than it holds', async () => {
    const client = new QueryClient();
    const { reads, stop } = watched(client, [page(10, 40), page(10, 50)]);
    await settle();
    reads[0]!();
    await settle();
    const ready = onStreamReady(client, 50);
    await settle();
    expect(reads).toHaveLength(2);
    reads[1]!();
    await ready;
    expect(client.getQueryData<MonitorSummaryPage>(key)?.monitors[1]?.last_status_change).toBe(50);
    stop();
  });

  it('keeps the summary when it holds the newest change already, or reads it again when that is unknown', async () => {
    const client = new QueryClient();
    const { reads, stop } = watched(client, [page(10, 40), page(10, 40)]);
    await settle();
    reads[0]!();
    await settle();
    await onStreamReady(client, 40);
    await settle();
    expect(reads).toHaveLength(1);
    const unknown = onStreamReady(client, null);
    await settle();
    expect(reads).toHaveLength(2);
    reads[1]!();
    await unknown;
    stop();
  });

  it('waits for a read under way (the preload), then reads again only if it lacks the newest change', async () => {
    const client = new QueryClient();
    const { reads, stop } = watched(client, [page(10, 40), page(10, 60)]);
    await settle();
    const ready = onStreamReady(client, 60);
    await settle();
    // Not cancelled, not doubled: the read under way goes on alone.
    expect(reads).toHaveLength(1);
    reads[0]!();
    await settle();
    expect(reads).toHaveLength(2);
    reads[1]!();
    await ready;
    expect(client.getQueryData<MonitorSummaryPage>(key)?.monitors[1]?.last_status_change).toBe(60);
    stop();
  });
});
