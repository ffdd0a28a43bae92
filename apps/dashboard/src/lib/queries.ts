import { useQuery } from '@tanstack/react-query';
import { api, query } from './api.ts';
import { withEventsSince } from './live.ts';
import type { Monitor, MonitorSummaryPage, Pagination } from './monitors.ts';

export interface Account {
  id: string;
  name: string;
  subscription_status: string;
  monitors_count: number;
  up_monitors: number;
  down_monitors: number;
  unknown_monitors: number;
  paused_monitors: number;
  created_at: number;
}

export const useAccount = () =>
  useQuery({
    queryKey: ['account'],
    queryFn: async () => (await api.get<{ data: Account }>('/api/account')).data,
    refetchInterval: 30_000,
  });

/** The summary's URL as the server's index.html preloads it for a signed-in session. */
const SUMMARY_PRELOAD = 'link[rel="preload"][href="/api/monitor_summary"]';
let preloadUnused = typeof document !== 'undefined' && document.querySelector(SUMMARY_PRELOAD) !== null;

/** Whether this is the first read of the summary on a page that preloaded it (true once). */
function takePreload(): boolean {
  const unused = preloadUnused;
  preloadUnused = false;
  return unused;
}

/**
 * Every monitor of the account with its status, uptime and sparkline: one request
 * (GET /api/monitor_summary, docs/decisions/0031-monitor-summary.md), read again every minute;
 * live events change rows in between (live.ts).
 */
export const useMonitorSummary = () =>
  useQuery({
    queryKey: ['monitors', 'summary'],
    queryFn: async () => {
      // The first read of a page whose index.html preloads the summary is given that answer, whose
      // request left when the page started: events since then apply to it.
      const sentAt = takePreload() ? performance.timeOrigin : Date.now();
      return withEventsSince((await api.get<{ data: MonitorSummaryPage }>('/api/monitor_summary')).data, sentAt);
    },
    refetchInterval: 60_000,
  });

interface MonitorPage {
  data: { monitors: Monitor[]; pagination: Pagination };
}

const PER_PAGE = 100;

/**
 * Every monitor of the account with its settings (the status page form): the API pages by at
 * most 100, so the first page comes, then the rest, four at a time. `onProgress` gets each page
 * as it arrives. The overview reads the summary instead (useMonitorSummary).
 */
export async function loadAllMonitors(onProgress?: (loaded: Monitor[], total: number) => void): Promise<Monitor[]> {
  const first = await api.get<MonitorPage>(
    `/api/monitors${query({ page: 1, per_page: PER_PAGE, sort: 'name', order: 'asc' })}`,
  );
  const { total_pages, total } = first.data.pagination;
  const pages: Monitor[][] = [first.data.monitors];
  onProgress?.(first.data.monitors, total);
  let next = 2;
  const worker = async () => {
    while (next <= total_pages) {
      const page = next++;
      const got = await api.get<MonitorPage>(
        `/api/monitors${query({ page, per_page: PER_PAGE, sort: 'name', order: 'asc' })}`,
      );
      pages[page - 1] = got.data.monitors;
      onProgress?.(pages.flat(), total);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return pages.flat();
}
