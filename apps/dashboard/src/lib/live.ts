import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Monitor } from './monitors.ts';

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

/** The monitor list with one change applied (the same list when the monitor is not in it, or the change is older). */
export function applyStatusEvent(list: readonly Monitor[], event: StatusEvent): readonly Monitor[] {
  const index = list.findIndex((m) => m.id === event.monitor_id);
  const monitor = list[index];
  if (!monitor || monitor.last_status_change > event.changed_at) return list;
  const next = list.slice();
  next[index] = { ...monitor, last_status: event.status, last_status_change: event.changed_at };
  return next;
}

/** What the cache does with a change: the list in place (no reload of every page), the monitor's own views and the counts again. */
export function onStatusEvent(client: QueryClient, event: StatusEvent): void {
  client.setQueryData<readonly Monitor[]>(['monitors', 'all'], (list) => (list ? applyStatusEvent(list, event) : list));
  void client.invalidateQueries({ queryKey: ['monitor', event.monitor_id] });
  void client.invalidateQueries({ queryKey: ['account'] });
  void client.invalidateQueries({ queryKey: ['incidents'] });
}

/** Keeps an event stream open while signed in; the browser reconnects by itself after a drop. */
export function useLiveStatus(): void {
  const client = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/events');
    source.addEventListener('status', (message: MessageEvent<string>) => {
      const event = parseStatusEvent(message.data);
      if (event) onStatusEvent(client, event);
    });
    return () => source.close();
  }, [client]);
}
