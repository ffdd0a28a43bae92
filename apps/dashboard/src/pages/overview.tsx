import { useEffect, useMemo, useRef, useState } from 'react';
import { ErrorNote, StatusBadge } from '../components/common.tsx';
import {
  countByStatus,
  filterMonitors,
  shownStatus,
  sortMonitors,
  sparklinePaths,
  uptimeText,
  visibleRange,
  type ListFilter,
  type MonitorSummary,
  type ShownStatus,
  type SortKey,
  type SummaryCounts,
} from '../lib/monitors.ts';
import { useMonitorSummary } from '../lib/queries.ts';
import { Link } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';
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

function Counts({ counts }: { counts: SummaryCounts | null }) {
  const items: { key: ShownStatus | 'total'; label: string }[] = [
    { key: 'down', label: 'Down' },
    { key: 'up', label: 'Up' },
    { key: 'unknown', label: 'No data' },
    { key: 'pending', label: 'Pending' },
    { key: 'maintenance', label: 'Maintenance' },
    { key: 'paused', label: 'Paused' },
    { key: 'total', label: 'All monitors' },
  ];
  return (
    <ul className="counts" aria-label="Monitors by status">
      {items.map((item) => (
        <li key={item.key} className={`count count-${item.key}`}>
          <span className="value">{counts ? counts[item.key] : '–'}</span>
          <span className="label">{item.label}</span>
        </li>
      ))}
    </ul>
  );
}

const SPARK_WIDTH = 96;
const SPARK_HEIGHT = 24;

/** Mean response time per hour of the last 24 (from the summary), as a line; nothing without data. */
function Sparkline({ values }: { values: readonly (number | null)[] }) {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return <span className="spark muted">no data</span>;
  const label = `Mean response time per hour, last 24 h: ${Math.min(...present)}–${Math.max(...present)} ms`;
  return (
    <svg
      className="spark"
      viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`}
      width={SPARK_WIDTH}
      height={SPARK_HEIGHT}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      {sparklinePaths(values, SPARK_WIDTH, SPARK_HEIGHT).map((points) => (
        <polyline key={points} points={points} />
      ))}
    </svg>
  );
}

function Row({
  monitor,
  now,
  top,
  height,
  position,
  count,
}: {
  monitor: MonitorSummary;
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
        <span className="target muted">{monitor.target ?? 'heartbeat'}</span>
      </span>
      <span className="type">{TYPE_NAMES[monitor.type]}</span>
      <span className="uptime uptime-24h" title="Uptime, last 24 hours">
        {uptimeText(monitor.uptime_24h)}
      </span>
      <span className="uptime uptime-30d muted" title="Uptime, last 30 days">
        {uptimeText(monitor.uptime_30d)}
      </span>
      <Sparkline values={monitor.response_ms} />
      <span className="since" title={`Since ${utcTime(monitor.last_status_change)}`}>
        {duration(now - monitor.last_status_change)}
      </span>
      <span className="checked muted" title={monitor.last_checked_at ? utcTime(monitor.last_checked_at) : undefined}>
        {monitor.last_checked_at ? ago(monitor.last_checked_at, now) : 'not checked yet'}
      </span>
    </li>
  );
}

/**
 * The monitors overview: counts, search and filters, down first, a virtualised list, all from
 * one GET /api/monitor_summary (docs/decisions/0031-monitor-summary.md).
 */
export function Overview() {
  const summary = useMonitorSummary();
  const canWrite = useCan('monitors:write');
  const [filter, setFilter] = useState<ListFilter>({ search: '', type: '', status: '' });
  const [sort, setSort] = useState<SortKey>('status');
  const all = summary.data?.monitors ?? null;
  const counts = useMemo(() => (all ? countByStatus(all) : null), [all]);
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
      <Counts counts={counts} />
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
            <option value="maintenance">Maintenance</option>
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
            <option value="uptime">Lowest uptime (24 h)</option>
          </select>
        </label>
      </form>
      <ErrorNote error={summary.error} />
      <p className="muted list-summary" role="status" aria-live="polite">
        {all === null ? 'Loading monitors…' : `${shown.length} of ${all.length} monitors shown`}
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
            <span>24 h</span>
            <span>30 d</span>
            <span>Response, 24 h</span>
            <span>For</span>
            <span>Last check</span>
          </div>
          <div className="list-scroll" ref={scroller} tabIndex={0} aria-label="Monitors list">
            <ul className="rows" style={{ height: shown.length * rowHeight }}>
              {shown.slice(range.start, range.end).map((monitor, i) => (
                <Row
                  key={monitor.id}
                  monitor={monitor}
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
