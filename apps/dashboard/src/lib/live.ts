import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { shownStatus, type Monitor, type MonitorSummary, type MonitorSummaryPage } from './monitors.ts';

/** One `status` event of GET /api/events (docs/decisions/0028-live-status.md). */
export interface StatusEvent {
  monitor_id: string;
  status: 'up' | 'down';
  changed_at: number;
}

/** Reads an event's data; null for anything that is not a status change. */
export function parseStatusEvent(data: string): StatusEvent | null {
  try {
    const value = JSON.parse(data) as Partial<StatusEvent>;
    if (typeof value.monitor_id !== 'string') return null;
    if (value.status !== 'up' && value.status !== 'down') return null;
    if (typeof value.changed_at !== 'number') return null;
    return { monitor_id: value.monitor_id, status: value.status, changed_at: value.changed_at };
  } catch {
    return null;
  }
}

/** What a status event changes: the fields a full monitor and a summary row share. */
type LiveFields = Pick<Monitor, 'id' | 'last_status' | 'last_status_change' | 'last_checked_at'>;

/** The monitor list with one change applied (the same list when the monitor is not in it, or the change is older). */
export function applyStatusEvent<M extends LiveFields>(list: readonly M[], event: StatusEvent): readonly M[] {
  const index = list.findIndex((m) => m.id === event.monitor_id);
  const monitor = list[index];
  if (!monitor || monitor.last_status_change > event.changed_at) return list;
  const next = list.slice();
  // A change is decided by a check that came back, so the monitor was checked then at the latest.
  const checked = Math.max(monitor.last_checked_at ?? 0, event.changed_at);
  next[index] = {
    ...monitor,
    last_status: event.status,
    last_status_change: event.changed_at,
    last_checked_at: checked,
  };
  return next;
}

/**
 * Check results reach the database in batches about a second apart: the monitor's own views
 * (checks, statistics) are read again once more after this long.
 */
export const RESULTS_SETTLE_MS = 2_000;

/** The overview's summary with one change applied; `status` follows (paused and maintenance still win). */
export function applyToSummary(page: MonitorSummaryPage, event: StatusEvent): MonitorSummaryPage {
  const monitors = applyStatusEvent<MonitorSummary>(page.monitors, event);
  if (monitors === page.monitors) return page;
  return {
    ...page,
    monitors: monitors.map((m) => (m.id === event.monitor_id ? { ...m, status: shownStatus(m) } : m)),
  };
}

/** Events of the last moments, so a summary whose request was in flight when they came can apply them too. */
const recent: { at: number; event: StatusEvent }[] = [];
const RECENT_KEPT = 500;

export function rememberEvent(event: StatusEvent, at = Date.now()): void {
  recent.push({ at, event });
  if (recent.length > RECENT_KEPT) recent.shift();
}

/**
 * The summary as answered, with the events received since its request was sent applied: the
 * answer may have been read before a change the stream has already told (older events are
 * ignored by applyStatusEvent, so applying one twice changes nothing).
 */
export function withEventsSince(page: MonitorSummaryPage, sentAt: number): MonitorSummaryPage {
  return recent.filter((r) => r.at >= sentAt).reduce((current, r) => applyToSummary(current, r.event), page);
}

/** What the cache does with a change: the list in place (no reload of every page), the monitor's own views and the counts again. */
export function onStatusEvent(client: QueryClient, event: StatusEvent, later = setTimeout): void {
  client.setQueryData<readonly Monitor[]>(['monitors', 'all'], (list) => (list ? applyStatusEvent(list, event) : list));
  rememberEvent(event);
  const summary = client.getQueryData<MonitorSummaryPage>(['monitors', 'summary']);
  if (summary && !summary.monitors.some((m) => m.id === event.monitor_id)) {
    // A monitor the summary does not have yet (created since): read it again.
    void client.invalidateQueries({ queryKey: ['monitors', 'summary'] });
  } else if (summary) {
    client.setQueryData(['monitors', 'summary'], applyToSummary(summary, event));
  }
  const views = { queryKey: ['monitor', event.monitor_id] };
  void client.invalidateQueries(views);
  void client.invalidateQueries({ queryKey: ['account'] });
  void client.invalidateQueries({ queryKey: ['incidents'] });
  later(() => void client.invalidateQueries(views), RESULTS_SETTLE_MS);
}

/** What `event: ready` says: the newest status change of the account's monitors when the stream began. */
export function parseReady(data: string): number | null {
  try {
    const value = (JSON.parse(data) as { last_status_change?: unknown }).last_status_change;
    return typeof value === 'number' ? value : null;
  } catch {
    return null;
  }
}

/**
 * A stream is ready (the first time, or again after a drop): a change made before that moment
 * is never sent (the server keeps no history, docs/decisions/0028-live-status.md). A summary
 * asked for before then is read again, once its answer has come, if the stream's newest change
 * (`lastChange`, null when unknown) is newer than every change it holds.
 */
export async function onStreamReady(client: QueryClient, lastChange: number | null): Promise<void> {
  const key = ['monitors', 'summary'];
  const state = client.getQueryState(key);
  if (!state) return;
  // The answer under way (the page's preload, often) first: it is what may lack a change.
  if (state.fetchStatus === 'fetching') await client.refetchQueries({ queryKey: key }, { cancelRefetch: false });
  const summary = client.getQueryData<MonitorSummaryPage>(key);
  const newestKnown = summary?.monitors.reduce((newest, m) => Math.max(newest, m.last_status_change), 0);
  if (lastChange !== null && newestKnown !== undefined && lastChange <= newestKnown) return;
  await client.invalidateQueries({ queryKey: key });
}

/** Keeps an event stream open while signed in; the browser reconnects by itself after a drop. */
export function useLiveStatus(): void {
  const client = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/events');
    source.addEventListener('ready', (message: MessageEvent<string>) => {
      void onStreamReady(client, parseReady(message.data));
    });
    source.addEventListener('status', (message: MessageEvent<string>) => {
      const event = parseStatusEvent(message.data);
      if (event) onStatusEvent(client, event);
    });
    return () => source.close();
  }, [client]);
}
