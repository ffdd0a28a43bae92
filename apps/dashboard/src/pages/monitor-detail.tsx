import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { TimeChart } from '../components/chart.tsx';
import { chartData, type Check } from '../lib/chart-data.ts';
import { CopyButton, ErrorNote, Loading, StatusBadge, TableScroll, Time } from '../components/common.tsx';
import { api, query } from '../lib/api.ts';
import { monitorType, monitorUrl, shownStatus, type Monitor } from '../lib/monitors.ts';
import { Link, navigate } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';
import { coveringNow } from '../lib/maintenance.ts';
import { useMaintenanceWindows } from './maintenance.tsx';
import { duration } from '../lib/time.ts';
import type { Incident } from './incidents.tsx';
import { rulesSummary } from '../lib/rules-draft.ts';
import { describeRegions, useRegions } from '../lib/regions.ts';

interface Figures {
  checks: number;
  failures: number;
  unknowns: number;
  uptime_percent: number | null;
  mean_response_ms: number | null;
  p95_response_ms: number | null;
}

interface Stats {
  period: string;
  from: number;
  to: number;
  overall: Figures;
  regions: (Figures & { region: string })[];
}

const PERIODS = ['24h', '7d', '30d'] as const;
const WINDOWS = [
  { key: '1h', seconds: 3600 },
  { key: '24h', seconds: 86400 },
  { key: 'all', seconds: Infinity },
] as const;

const percent = (value: number | null) =>
  value === null ? '–' : `${value === 0 || value === 100 ? value : value.toFixed(2)} %`;
const ms = (value: number | null | undefined) => (value === null || value === undefined ? '–' : `${value} ms`);

function Why({ monitor, checks, incident }: { monitor: Monitor; checks: Check[]; incident: Incident | undefined }) {
  const status = monitor.last_status;
  // The newest result of each region: what the verdict rests on.
  const latest = new Map<string, Check>();
  for (const c of checks) if (!latest.has(c.region)) latest.set(c.region, c);
  const rows = [...latest.values()];
  return (
    <section className="card" aria-labelledby="why-title">
      <h2 id="why-title">Why it is {status === 'unknown' ? 'without data' : status}</h2>
      {status === 'down' && incident && (
        <p>
          Down since <Time at={incident.started_at} /> ({duration(incident.duration)}):{' '}
          <strong>{incident.reason}</strong>. <Link href={`/incidents/${incident.id}`}>Incident</Link>
        </p>
      )}
      {status === 'unknown' && (
        <p>
          Picket has had no up or down result for three check intervals: no agent answered for this monitor&apos;s
          regions, or the checks could not run. This is not an outage of the target.
        </p>
      )}
      {status === 'pending' && <p>No check has finished yet.</p>}
      {rows.length > 0 && (
        <TableScroll label="Latest check per region">
          <table>
            <caption className="sr-only">The newest check of each region</caption>
            <thead>
              <tr>
                <th scope="col">Region</th>
                <th scope="col">Result</th>
                <th scope="col">Failed at</th>
                <th scope="col">Reason</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.region} className={`result-${c.status}`}>
                  <td>{c.region}</td>
                  <td>{c.status}</td>
                  <td>{c.status === 'up' ? '–' : (c.phase ?? '–')}</td>
                  <td>{c.error ?? (c.http_status ? `HTTP ${c.http_status}` : '–')}</td>
                  <td>
                    <Time at={c.checked_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {status === 'down' && incident && Object.keys(incident.check_results).length > 0 && (
        <>
          <h3>Evidence when it went down</h3>
          <ul className="evidence">
            {Object.entries(incident.check_results).map(([region, r]) => (
              <li key={region}>
                <strong>{region}</strong>: {r.status}
                {r.error ? ` (${r.error})` : ''} at <Time at={r.checked_at} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** A heartbeat's ping URL, to copy, and how a job calls it. */
function PingUrl({ url, period }: { url: string; period: number }) {
  const lines = [
    { what: 'at the end of each run', line: `curl -fsS ${url}` },
    { what: 'when the job fails (down at once)', line: `curl -fsS ${url}/fail` },
    {
      what: 'both, in a crontab line',
      line: `0 3 * * * /usr/local/bin/backup && curl -fsS ${url} || curl -fsS ${url}/fail`,
    },
  ];
  return (
    <section className="card" aria-labelledby="ping-title">
      <h2 id="ping-title">Ping URL</h2>
      <p>The job requests this URL (GET, POST or HEAD) at least every {duration(period)}; no API key is needed.</p>
      <p className="copy-line">
        <code className="secret">{url}</code> <CopyButton text={url} label="Copy the ping URL" />
      </p>
      <dl className="examples">
        {lines.map(({ what, line }) => (
          <div key={what}>
            <dt>{what}</dt>
            <dd>
              <pre className="code">{line}</pre>
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** One monitor: status, figures, response times, why, recent checks, incidents, and its actions. */
export function MonitorDetail({ id }: { id: string }) {
  const client = useQueryClient();
  const canWrite = useCan('monitors:write');
  const windows = useMaintenanceWindows();
  const regions = useRegions();
  const monitor = useQuery({
    queryKey: ['monitor', id],
    queryFn: async () => (await api.get<{ data: Monitor }>(`/api/monitors/${id}`)).data,
    refetchInterval: 15_000,
  });
  const stats = useQuery({
    queryKey: ['monitor', id, 'stats'],
    queryFn: async () =>
      Promise.all(
        PERIODS.map(
          async (period) => (await api.get<{ data: Stats }>(`/api/monitors/${id}/stats${query({ period })}`)).data,
        ),
      ),
  });
  const checks = useQuery({
    queryKey: ['monitor', id, 'checks'],
    queryFn: async () =>
      (await api.get<{ data: { checks: Check[] } }>(`/api/monitors/${id}/checks${query({ per_page: 100 })}`)).data
        .checks,
    refetchInterval: 15_000,
  });
  const incidents = useQuery({
    queryKey: ['monitor', id, 'incidents'],
    queryFn: async () =>
      (await api.get<{ data: { incidents: Incident[] } }>(`/api/incidents${query({ monitor_id: id, per_page: 10 })}`))
        .data.incidents,
  });
  const [span, setSpan] = useState<(typeof WINDOWS)[number]['key']>('all');
  const chart = useMemo(() => {
    const seconds = WINDOWS.find((w) => w.key === span)!.seconds;
    return chartData(checks.data ?? [], seconds === Infinity ? 0 : Date.now() / 1000 - seconds);
  }, [checks.data, span]);

  const toggle = useMutation({
    mutationFn: (m: Monitor) => api.post(`/api/monitors/${m.id}/${m.active ? 'pause' : 'resume'}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['monitor', id] }),
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/api/monitors/${id}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['monitors'] });
      navigate('/monitors');
    },
  });

  if (monitor.isPending) return <Loading what="the monitor" />;
  if (monitor.isError) return <ErrorNote error={monitor.error} />;
  const m = monitor.data;
  const open = incidents.data?.find((i) => !i.is_resolved);
  const covering = coveringNow(windows.data ?? [], m.id);
  const https = m.settings.https;
  const heartbeat = m.settings.heartbeat;

  return (
    <article aria-labelledby="monitor-title">
      <p className="crumbs">
        <Link href="/monitors">Monitors</Link> /
      </p>
      <div className="heading">
        <h1 id="monitor-title">
          {m.name} <StatusBadge status={shownStatus(m)} />
        </h1>
        {canWrite && (
          <div className="actions">
            <Link className="button" href={`/monitors/${m.id}/edit`}>
              Edit
            </Link>
            <button type="button" onClick={() => toggle.mutate(m)} disabled={toggle.isPending}>
              {m.active ? 'Pause' : 'Resume'}
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (confirm(`Delete the monitor “${m.name}” and its history and incidents? This cannot be undone.`))
                  remove.mutate();
              }}
              disabled={remove.isPending}
            >
              Delete
            </button>
          </div>
        )}
      </div>
      <ErrorNote error={toggle.error ?? remove.error} />
      {covering.length > 0 && (
        <p className="note maintenance" role="status">
          Under maintenance: {covering.map((w) => w.name).join(', ')}. Checks go on, but no incident opens and nobody is
          notified until {covering.length === 1 ? 'it ends' : 'they end'}.{' '}
          <Link href="/maintenance">Maintenance windows</Link>
        </p>
      )}
      <dl className="facts">
        {/* A heartbeat's address is its ping URL, shown once, in its own card below with a copy button. */}
        {!heartbeat && (
          <div>
            <dt>Target</dt>
            <dd className="wrap">{monitorUrl(m)}</dd>
          </div>
        )}
        <div>
          <dt>Type</dt>
          <dd>{monitorType(m)}</dd>
        </div>
        {heartbeat ? (
          <div>
            <dt>Expects a ping</dt>
            <dd>
              every {duration(heartbeat.period)}, {duration(heartbeat.grace)} grace
            </dd>
          </div>
        ) : (
          <div>
            <dt>Every</dt>
            <dd>{duration(m.check_interval)}</dd>
          </div>
        )}
        <div>
          <dt>Status since</dt>
          <dd>
            <Time at={m.last_status_change} />
          </dd>
        </div>
        <div>
          <dt>Last check</dt>
          <dd>
            <Time at={m.last_checked_at} />
          </dd>
        </div>
        {!heartbeat && (
          <div>
            <dt>Regions</dt>
            <dd>{describeRegions(m.regions, regions.data)}</dd>
          </div>
        )}
        <div>
          <dt>Notifies</dt>
          <dd>{rulesSummary(m.notification_rules)}</dd>
        </div>
        {https && (
          <div>
            <dt>Certificate</dt>
            <dd>{https.check_certificate_expiration ? 'expiry watched' : 'expiry not watched'}</dd>
          </div>
        )}
      </dl>

      {heartbeat?.ping_url && <PingUrl url={heartbeat.ping_url} period={heartbeat.period} />}

      <section className="card" aria-labelledby="figures-title">
        <h2 id="figures-title">Uptime and response time</h2>
        <ErrorNote error={stats.error} />
        <TableScroll label="Uptime and response time">
          <table className="figures">
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col">Uptime</th>
                <th scope="col">Mean</th>
                <th scope="col">p95</th>
                <th scope="col">Checks</th>
                <th scope="col">Failures</th>
              </tr>
            </thead>
            <tbody>
              {(stats.data ?? []).map((s) => (
                <tr key={s.period}>
                  <th scope="row">{s.period}</th>
                  <td>{percent(s.overall.uptime_percent)}</td>
                  <td>{ms(s.overall.mean_response_ms)}</td>
                  <td>{ms(s.overall.p95_response_ms)}</td>
                  <td>{s.overall.checks}</td>
                  <td>{s.overall.failures}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </section>

      <section className="card" aria-labelledby="chart-title">
        <div className="heading">
          <h2 id="chart-title">Response time by region</h2>
          <div className="segmented" role="group" aria-label="Time window">
            {WINDOWS.map((w) => (
              <button key={w.key} type="button" aria-pressed={span === w.key} onClick={() => setSpan(w.key)}>
                {w.key === 'all' ? 'Last 100 checks' : w.key}
              </button>
            ))}
          </div>
        </div>
        {chart.x.length > 1 && chart.series.some((s) => s.values.some((v) => v !== null)) ? (
          <TimeChart x={chart.x} series={chart.series} label={`Response times of ${m.name} by region`} />
        ) : (
          <p className="muted">No successful checks in this window: response times are drawn for up results only.</p>
        )}
      </section>

      <Why monitor={m} checks={checks.data ?? []} incident={open} />

      <section className="card" aria-labelledby="checks-title">
        <h2 id="checks-title">Recent checks</h2>
        <ErrorNote error={checks.error} />
        <TableScroll label="Recent checks">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Region</th>
                <th scope="col">Result</th>
                <th scope="col">Time</th>
                <th scope="col">DNS / connect / TLS / first byte</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {(checks.data ?? []).slice(0, 30).map((c) => (
                <tr key={c.id} className={`result-${c.status}`}>
                  <td>
                    <Time at={c.checked_at} />
                  </td>
                  <td>{c.region}</td>
                  <td>{c.status}</td>
                  <td>{ms(c.response_time_ms)}</td>
                  <td>
                    {c.timings
                      ? [c.timings.dns_ms, c.timings.connect_ms, c.timings.tls_ms, c.timings.first_byte_ms]
                          .map((t) => (t === null ? '–' : t))
                          .join(' / ')
                      : '–'}
                  </td>
                  <td>{c.error ?? (c.http_status ? `HTTP ${c.http_status}` : '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
        {checks.data?.length === 0 && <p className="muted">No checks recorded yet.</p>}
      </section>

      <section className="card" aria-labelledby="incidents-title">
        <h2 id="incidents-title">Incidents</h2>
        {incidents.data?.length === 0 && <p className="muted">No incidents.</p>}
        <ul className="plain">
          {(incidents.data ?? []).map((i) => (
            <li key={i.id}>
              <Link href={`/incidents/${i.id}`}>
                <Time at={i.started_at} />
              </Link>{' '}
              {i.is_resolved ? `resolved after ${duration(i.duration)}` : 'ongoing'}: {i.reason}
            </li>
          ))}
        </ul>
      </section>
    </article>
  );
}
