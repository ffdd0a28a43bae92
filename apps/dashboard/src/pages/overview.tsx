import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ErrorNote, StatusBadge } from '../components/common.tsx';
import {
  countByStatus,
  filterMonitors,
  monitorType,
  monitorUrl,
  shownStatus,
  sortMonitors,
  visibleRange,
  type ListFilter,
  type Monitor,
  type ShownStatus,
  type SortKey,
} from '../lib/monitors.ts';
import { loadAllMonitors, useAccount } from '../lib/queries.ts';
import { Link } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';
import { coveringNow } from '../lib/maintenance.ts';
import { useMaintenanceWindows } from './maintenance.tsx';
import { ago, duration, utcTime } from '../lib/time.ts';

const TYPE_NAMES = { https: 'HTTP(S)', tcp: 'TCP', ping: 'Ping', dns: 'DNS', heartbeat: 'Heartbeat' } as const;

function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => matchMedia('(max-width: 640px)').matches);
  useEffect(() => {
    const query = matchMedia('(max-width: 640px)');
    const listener = () => setNarrow(query.matches);
    query.addEventListener('change', listener);
    return () => query.removeEventListener('change', listener);
  }, []);
  return narrow;
}

function Counts({ monitors }: { monitors: Monitor[] | null }) {
  const account = useAccount();
  const fromList = monitors ? countByStatus(monitors) : null;
  const a = account.data;
  const items: { key: ShownStatus | 'total'; label: string; value: number | undefined }[] = [
    { key: 'down', label: 'Down', value: a?.down_monitors ?? fromList?.down },
    { key: 'up', label: 'Up', value: a?.up_monitors ?? fromList?.up },
    { key: 'unknown', label: 'No data', value: a?.unknown_monitors ?? fromList?.unknown },
    { key: 'paused', label: 'Paused', value: a?.paused_monitors ?? fromList?.paused },
    { key: 'total', label: 'All monitors', value: a?.monitors_count ?? monitors?.length },
  ];
  return (
    <ul className="counts" aria-label="Monitors by status">
      {items.map((item) => (
        <li key={item.key} className={`count count-${item.key}`}>
          <span className="value">{item.value ?? '–'}</span>
          <span className="label">{item.label}</span>
        </li>
      ))}
    </ul>
  );
}

function Row({
  monitor,
  maintenance,
  now,
  top,
  height,
  position,
  count,
}: {
  monitor: Monitor;
  maintenance: boolean;
  now: number;
  top: number;
  height: number;
  position: number;
  count: number;
}) {
  const status = shownStatus(monitor);
  return (
    <li
      className={`row row-${status}`}
      style={{ transform: `translateY(${top}px)`, height }}
      data-monitor={monitor.id}
      aria-setsize={count}
      aria-posinset={position}
    >
      <StatusBadge status={status} />
      <span className="name">
        <Link href={`/monitors/${monitor.id}`}>{monitor.name}</Link>
        {maintenance && <span className="tag maintenance">Under maintenance</span>}
        <span className="target muted">{monitorUrl(monitor)}</span>
      </span>
      <span className="type">{TYPE_NAMES[monitorType(monitor)]}</span>
      <span className="since" title={`Since ${utcTime(monitor.last_status_change)}`}>
        {duration(now - monitor.last_status_change)}
      </span>
      <span className="checked muted" title={monitor.last_checked_at ? utcTime(monitor.last_checked_at) : undefined}>
        {monitor.last_checked_at ? ago(monitor.last_checked_at, now) : 'not checked yet'}
      </span>
    </li>
  );
}

/** The monitors overview: counts, search and filters, down first, a virtualised list. */
export function Overview() {
  const [partial, setPartial] = useState<{ list: Monitor[]; total: number } | null>(null);
  const monitors = useQuery({
    queryKey: ['monitors', 'all'],
    queryFn: () => loadAllMonitors((list, total) => setPartial({ list, total })),
    refetchInterval: (q) => ((q.state.data?.length ?? 0) <= 500 ? 30_000 : false),
  });
  const canWrite = useCan('monitors:write');
  const windows = useMaintenanceWindows();
  const [filter, setFilter] = useState<ListFilter>({ search: '', type: '', status: '' });
  const [sort, setSort] = useState<SortKey>('status');
  const all = monitors.data ?? partial?.list ?? null;
  const shown = useMemo(() => (all ? sortMonitors(filterMonitors(all, filter), sort) : []), [all, filter, sort]);

  const narrow = useNarrow();
  const rowHeight = narrow ? 76 : 56;
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const update = () => setView({ top: element.scrollTop, height: element.clientHeight });
    update();
    element.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      element.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
    // The list's element is new whenever it comes back (after a filter that matched nothing): listen to that one.
  }, [shown.length > 0]);
  const range = visibleRange(view.top, view.height, rowHeight, shown.length);
  const now = Math.floor(Date.now() / 1000);

  return (
    <section aria-labelledby="overview-title">
      <div className="heading">
        <h1 id="overview-title">Monitors</h1>
        {canWrite && (
          <Link className="button primary" href="/monitors/new">
            New monitor
          </Link>
        )}
      </div>
      <Counts monitors={monitors.data ?? null} />
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          <span>Search</span>
          <input
            type="search"
            placeholder="Name or address"
            value={filter.search}
            onChange={(e) => setFilter({ ...filter, search: e.target.value })}
          />
        </label>
        <label>
          <span>Type</span>
          <select
            value={filter.type}
            onChange={(e) => setFilter({ ...filter, type: e.target.value as ListFilter['type'] })}
          >
            <option value="">All types</option>
            <option value="https">HTTP(S)</option>
            <option value="tcp">TCP</option>
            <option value="ping">Ping</option>
            <option value="dns">DNS</option>
            <option value="heartbeat">Heartbeat</option>
          </select>
        </label>
        <label>
          <span>Status</span>
          <select
            value={filter.status}
            onChange={(e) => setFilter({ ...filter, status: e.target.value as ListFilter['status'] })}
          >
            <option value="">All statuses</option>
            <option value="down">Down</option>
            <option value="up">Up</option>
            <option value="unknown">No data</option>
            <option value="pending">Pending</option>
            <option value="paused">Paused</option>
          </select>
        </label>
        <label>
          <span>Sort</span>
          <select value={sort} onChange={(e) => setSort(e.target.value as SortKey)}>
            <option value="status">Down first</option>
            <option value="name">Name</option>
            <option value="last_change">Last change</option>
            <option value="created">Newest</option>
          </select>
        </label>
      </form>
      <ErrorNote error={monitors.error} />
      <p className="muted list-summary" role="status" aria-live="polite">
        {all === null
          ? 'Loading monitors…'
          : `${shown.length} of ${all.length} monitors shown` +
            (monitors.data === undefined && partial ? ` (loading ${partial.total - partial.list.length} more…)` : '')}
      </p>
      {all !== null && all.length === 0 && (
        <div className="empty card">
          <h2>No monitors yet</h2>
          <p>
            Create one to start checking a website or service.{' '}
            {canWrite && <Link href="/monitors/new">New monitor</Link>}
          </p>
        </div>
      )}
      {shown.length > 0 && (
        <div className="list-frame">
          <div className="list-head" aria-hidden="true">
            <span>Status</span>
            <span>Name</span>
            <span>Type</span>
            <span>For</span>
            <span>Last check</span>
          </div>
          <div className="list-scroll" ref={scroller} tabIndex={0} aria-label="Monitors list">
            <ul className="rows" style={{ height: shown.length * rowHeight }}>
              {shown.slice(range.start, range.end).map((monitor, i) => (
                <Row
                  key={monitor.id}
                  monitor={monitor}
                  maintenance={coveringNow(windows.data ?? [], monitor.id).length > 0}
                  now={now}
                  top={(range.start + i) * rowHeight}
                  height={rowHeight}
                  position={range.start + i + 1}
                  count={shown.length}
                />
              ))}
            </ul>
          </div>
        </div>
      )}
    </section>
  );
}
