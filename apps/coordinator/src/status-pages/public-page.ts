/**
 * A public status page, pure: the model (what the page shows, also its JSON) and the HTML made
 * from it. No storage, no clock: the service gathers the model, this file only renders it.
 */

/** What a public status page shows; `GET /status/{id}.json` answers exactly this as `data`. */
export interface PublicPage {
  name: string;
  /** Days covered: 7, 30 or 90. */
  period: number;
  overall: OverallStatus;
  monitors: PublicMonitor[];
  /** Newest first: those that started in the period, and any still open. */
  incidents: PublicIncident[];
  /**
   * Maintenance of the page's monitors under way or starting within 7 days, soonest first
   * (docs/decisions/0026-maintenance-windows.md).
   */
  maintenance: PublicMaintenance[];
  /** Unix seconds when the figures were gathered. */
  generated_at: number;
}

/**
 * `partial_data` and `no_data`: some or all of the watched monitors are `unknown` and none is
 * down, so the page cannot honestly say operational (docs/decisions/0001-truth-when-blind.md).
 */
export type OverallStatus =
  'operational' | 'partial_outage' | 'major_outage' | 'partial_data' | 'no_data' | 'maintenance' | 'unknown';

export interface PublicMonitor {
  /** The monitor's name: never its URL, host or any setting. */
  name: string;
  /**
   * `pending`: not checked yet; `unknown`: no UP or DOWN result for three check intervals (shown
   * as "No data", never as operational); `paused`: alerting paused by the owner (said even when
   * Picket cannot see the monitor); `maintenance`: a maintenance window covers it now (said
   * whatever its checks find, docs/decisions/0026-maintenance-windows.md).
   */
  status: 'up' | 'down' | 'pending' | 'unknown' | 'paused' | 'maintenance';
  /** Over the page's period; null without decided (UP or DOWN) checks. */
  uptime_percent: number | null;
  /** One per day of the period, oldest first, ending today (UTC). */
  days: PublicDay[];
}

export interface PublicDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  uptime_percent: number | null;
  /** Every check of the day, UNKNOWN ones included. */
  checks: number;
  /** Mean response time of the day's answered checks, ms; null without any. */
  avg_response_ms: number | null;
}

export interface PublicMaintenance {
  /** The window's name. */
  name: string;
  /** Names of the page's monitors it covers. */
  monitors: string[];
  /** The occurrence shown: under way (from now) or the next one. */
  starts_at: number;
  ends_at: number;
  in_progress: boolean;
}

export interface PublicIncident {
  monitor: string;
  started_at: number;
  /** Null while the outage lasts. */
  resolved_at: number | null;
  /** Only when the page shows incident reasons, and then without the target (publicReason). */
  reason?: string;
}

/**
 * Over the watched monitors (up, down or unknown; paused, pending and maintenance ones do not count): all
 * down → major; some down → partial; none down but all unknown → no data; some unknown →
 * partial data; all up → operational; none watched → under maintenance when some are, else unknown. A down monitor outranks an
 * unknown one (an outage Picket saw is news); an unknown one is never counted as operational.
 */
export function overallOf(monitors: readonly Pick<PublicMonitor, 'status'>[]): OverallStatus {
  const watched = monitors.filter((m) => m.status === 'up' || m.status === 'down' || m.status === 'unknown');
  if (watched.length === 0) return monitors.some((m) => m.status === 'maintenance') ? 'maintenance' : 'unknown';
  const down = watched.filter((m) => m.status === 'down').length;
  if (down > 0) return down === watched.length ? 'major_outage' : 'partial_outage';
  const unknown = watched.filter((m) => m.status === 'unknown').length;
  if (unknown === 0) return 'operational';
  return unknown === watched.length ? 'no_data' : 'partial_data';
}

export const OVERALL_TEXT: { readonly [K in OverallStatus]: string } = {
  operational: 'All systems operational',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  partial_data: 'Some services have no current data',
  no_data: 'No data',
  maintenance: 'Under maintenance',
  unknown: 'Status unknown',
};

export const STATUS_TEXT: { readonly [K in PublicMonitor['status']]: string } = {
  up: 'Operational',
  down: 'Down',
  pending: 'Not checked yet',
  unknown: 'No data',
  paused: 'Paused',
  maintenance: 'Under maintenance',
};

/** The bar colour class of a day: ≥ 99.9 % ok, ≥ 99 % minor, below bad, no decided check none. */
export function barClass(uptime: number | null): 'ok' | 'minor' | 'bad' | 'none' {
  if (uptime === null) return 'none';
  if (uptime >= 99.9) return 'ok';
  if (uptime >= 99) return 'minor';
  return 'bad';
}

/** Text for HTML content and attribute values (both quote kinds escaped). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The realm of a page whose name keeps no printable ASCII at all. */
export const FALLBACK_REALM = 'Status page';

/**
 * `WWW-Authenticate` for a page behind basic auth (RFC 7617): the page's name as the realm,
 * reduced to printable ASCII, since a header value cannot carry other text and Node refuses it
 * (docs/decisions/0017-http-edge-hardening.md). Accents are dropped (`Zoë` → `Zoe`), other
 * letters, emoji, quotes, backslashes and controls removed, spaces collapsed, at most 100
 * characters; `Status page` when nothing is left. `charset="UTF-8"` tells the browser to send
 * the credentials in UTF-8.
 */
export function basicAuthChallenge(name: string): string {
  const realm =
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/[^\x20-\x7e]|["\\]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100)
      .trim() || FALLBACK_REALM;
  return `Basic realm="${realm}", charset="UTF-8"`;
}

/** Two decimals, or "no data". */
export function formatPercent(value: number | null): string {
  return value === null ? 'no data' : `${value.toFixed(2)}%`;
}

/** The label of a day's bar (tooltip and screen-reader text). */
export function dayLabel(day: PublicDay): string {
  const checks = `${day.checks} ${day.checks === 1 ? 'check' : 'checks'}`;
  return day.uptime_percent === null
    ? `${day.date}: no data, ${checks}`
    : `${day.date}: ${formatPercent(day.uptime_percent)} uptime, ${checks}`;
}

const utc = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('T', ' ').slice(0, 16);
const isoTime = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

function durationText(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

const TREND_WIDTH = 300;
const TREND_HEIGHT = 40;

/** The daily mean response times as an inline SVG line (with a text alternative), or a sentence when too few. */
export function renderTrend(days: readonly PublicDay[]): string {
  const points: { index: number; ms: number }[] = [];
  days.forEach((day, index) => {
    if (day.avg_response_ms !== null) points.push({ index, ms: day.avg_response_ms });
  });
  const last = points.at(-1);
  if (last === undefined || points.length < 2) {
    return '<p class="muted">Not enough data for a response-time trend yet.</p>';
  }
  const max = Math.max(...points.map((p) => p.ms));
  const min = Math.min(...points.map((p) => p.ms));
  const x = (index: number) => ((index / Math.max(1, days.length - 1)) * TREND_WIDTH).toFixed(1);
  // From the period's lowest mean (bottom) to its highest (top); a flat series runs through the middle.
  const y = (ms: number) =>
    (max === min ? TREND_HEIGHT / 2 : TREND_HEIGHT - 2 - ((ms - min) / (max - min)) * (TREND_HEIGHT - 4)).toFixed(1);
  const polyline = points.map((p) => `${x(p.index)},${y(p.ms)}`).join(' ');
  const summary = `Response time, daily mean: from ${min} to ${max} ms over the period; ${last.ms} ms on the latest day with data`;
  return (
    `<svg class="trend" viewBox="0 0 ${TREND_WIDTH} ${TREND_HEIGHT}" preserveAspectRatio="none" role="img" ` +
    `aria-label="${summary}"><title>${summary}</title>` +
    `<polyline fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke" points="${polyline}"/></svg>` +
    `<p class="muted">Response time (daily mean): latest ${last.ms} ms; ${min} to ${max} ms over the period.</p>`
  );
}

function renderMonitor(monitor: PublicMonitor, index: number, period: number): string {
  const bars = monitor.days
    .map((day) => {
      const label = dayLabel(day);
      return `<li class="${barClass(day.uptime_percent)}" title="${label}"><span class="sr">${label}</span></li>`;
    })
    .join('');
  return (
    `<section class="monitor" aria-labelledby="m${index}">` +
    `<div class="row"><h3 id="m${index}">${escapeHtml(monitor.name)}</h3>` +
    `<strong class="status status-${monitor.status}" data-status="${monitor.status}">${STATUS_TEXT[monitor.status]}</strong></div>` +
    `<p class="muted">Uptime, last ${period} days: <span class="uptime">${formatPercent(monitor.uptime_percent)}</span></p>` +
    `<ol class="bars" aria-label="Daily uptime of ${escapeHtml(monitor.name)}, oldest first">${bars}</ol>` +
    `<p class="muted axis" aria-hidden="true"><span>${monitor.days[0]?.date ?? ''}</span><span>Today</span></p>` +
    renderTrend(monitor.days) +
    `</section>`
  );
}

function renderIncident(incident: PublicIncident, now: number): string {
  const end = incident.resolved_at ?? now;
  const state =
    incident.resolved_at === null
      ? `ongoing for ${durationText(end - incident.started_at)}`
      : `resolved after ${durationText(end - incident.started_at)}`;
  const reason = incident.reason === undefined ? '' : `: ${escapeHtml(incident.reason)}`;
  return (
    `<li class="incident${incident.resolved_at === null ? ' open' : ''}"><strong>${escapeHtml(incident.monitor)}</strong> ` +
    `down since <time datetime="${isoTime(incident.started_at)}">${utc(incident.started_at)} UTC</time>, ${state}${reason}</li>`
  );
}

function renderMaintenance(item: PublicMaintenance): string {
  const when = item.in_progress
    ? `under way until <time datetime="${isoTime(item.ends_at)}">${utc(item.ends_at)} UTC</time>`
    : `from <time datetime="${isoTime(item.starts_at)}">${utc(item.starts_at)} UTC</time> ` +
      `to <time datetime="${isoTime(item.ends_at)}">${utc(item.ends_at)} UTC</time>`;
  return (
    `<li class="maintenance${item.in_progress ? ' open' : ''}"><strong>${escapeHtml(item.name)}</strong> ` +
    `(${item.monitors.map(escapeHtml).join(', ')}): ${when}</li>`
  );
}

/* Colours meet WCAG AA (4.5:1) for text on both the page and the cards, light and dark. */
const STYLE =
  ':root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#57606a;--card:#f6f8fa;--line:#d0d7de;' +
  '--ok:#1a7f37;--minor:#9a6700;--bad:#cf222e;--none:#6e7781}' +
  '@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--card:#161b22;--line:#30363d;' +
  '--ok:#3fb950;--minor:#d29922;--bad:#f85149;--none:#6e7681}}' +
  '*{box-sizing:border-box}body{margin:0;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
  'background:var(--bg);color:var(--fg)}header,main,footer{max-width:52rem;margin:0 auto;padding:1rem}' +
  'h1{font-size:1.75rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}h2{font-size:1.25rem;margin:1.5rem 0 .5rem}' +
  'h3{font-size:1.05rem;margin:0;overflow-wrap:anywhere}' +
  '.overall{margin:0;padding:1rem;border-radius:.5rem;background:var(--card);border:1px solid var(--line);' +
  'border-left:.5rem solid var(--none);font-weight:600;font-size:1.15rem}' +
  '.overall.operational{border-left-color:var(--ok)}.overall.partial_outage{border-left-color:var(--minor)}' +
  '.overall.major_outage{border-left-color:var(--bad)}' +
  '.monitor{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin:0 0 1rem}' +
  '.row{display:flex;justify-content:space-between;align-items:baseline;gap:.5rem 1rem;flex-wrap:wrap}' +
  '.status-up{color:var(--ok)}.status-down{color:var(--bad)}' +
  '.status-pending,.status-unknown,.status-paused,.status-maintenance{color:var(--muted)}' +
  '.muted{color:var(--muted);font-size:.9rem;margin:.25rem 0}' +
  '.bars{display:flex;gap:2px;list-style:none;padding:0;margin:.75rem 0 0;height:2.5rem}' +
  '.bars li{flex:1 1 0;min-width:1px;border-radius:2px}.bars .ok{background:var(--ok)}' +
  '.bars .minor{background:var(--minor)}.bars .bad{background:var(--bad)}.bars .none{background:var(--none);opacity:.5}' +
  '.axis{display:flex;justify-content:space-between;font-size:.8rem}' +
  '.trend{display:block;width:100%;height:2.5rem;margin-top:.75rem;color:var(--muted)}' +
  '.incidents{padding-left:1.25rem}.incidents li{margin:.35rem 0}.legend{font-size:.85rem}' +
  '.sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}' +
  'footer{color:var(--muted);font-size:.85rem}';

/**
 * The page as one HTML document: no script, inline CSS, fluid on a phone, dark when the
 * reader prefers it; every colour also said in words. All user text is escaped.
 */
export function renderPublicPage(page: PublicPage): string {
  const monitors =
    page.monitors.length === 0
      ? '<p class="muted">No monitors on this page.</p>'
      : page.monitors.map((m, i) => renderMonitor(m, i, page.period)).join('');
  const incidents =
    page.incidents.length === 0
      ? `<p class="muted">No incidents in the last ${page.period} days.</p>`
      : `<ul class="incidents">${page.incidents.map((i) => renderIncident(i, page.generated_at)).join('')}</ul>`;
  const maintenance =
    page.maintenance.length === 0
      ? ''
      : `<section aria-labelledby="maintenance"><h2 id="maintenance">Scheduled maintenance</h2>` +
        `<ul class="incidents">${page.maintenance.map(renderMaintenance).join('')}</ul></section>`;
  const name = escapeHtml(page.name);
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="color-scheme" content="light dark">' +
    `<title>${name} status</title><style>${STYLE}</style></head><body>` +
    `<header><h1>${name}</h1>` +
    `<p class="overall ${page.overall}" role="status" data-overall="${page.overall}">${OVERALL_TEXT[page.overall]}</p></header>` +
    `<main><section aria-labelledby="services"><h2 id="services">Services</h2>` +
    `<p class="muted legend">One bar per day (UTC): green at least 99.9% uptime, amber at least 99%, red below, grey no data. ` +
    `Hover over a bar for its figures.</p>${monitors}</section>${maintenance}` +
    `<section aria-labelledby="incidents"><h2 id="incidents">Recent incidents</h2>${incidents}</section></main>` +
    `<footer><p>Updated <time datetime="${isoTime(page.generated_at)}">${utc(page.generated_at)} UTC</time>. ` +
    `Powered by Picket.</p></footer></body></html>`
  );
}

// ---- incident reasons -----------------------------------------------------------------------

/** What a public reason is when nothing is left of it. */
const NO_REASON = 'Down';
/** The probers' one reason that names the host it was checking. */
const CERTIFICATE_FOR = /^certificate is not valid for\b.*$/s;
/** `DNS lookup failed: <resolver words>`, `request failed: <HTTP client words>`: the words after are not ours. */
const DETAIL = /: .*$/s;
const URL_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/\S*/gi;
const EMAIL = /\S+@\S+/g;
const IPV6_BRACKETED = /\[[0-9a-f:.%\w-]*\](?::\d+)?/gi;
const IPV6 = /(?<![\w:])(?:[0-9a-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{1,4})?(?:%[\w.-]+)?(?![\w:])/gi;
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g;
const HOST_NAME = /\b(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z][a-z0-9-]{0,62}\.?(?::\d+)?(?![\w.-])/gi;

/**
 * An incident's reason as a public page shows it: the class of failure ("connection refused",
 * "HTTP 503", "certificate has expired") without the addresses, host names, ports and URLs the
 * probers put next to it, since a public page never reveals a monitor's target
 * (docs/decisions/0008-status-pages.md). Words a resolver or HTTP client added after a colon go
 * too. The API keeps the whole reason.
 */
export function publicReason(reason: string): string {
  if (CERTIFICATE_FOR.test(reason)) return 'certificate is not valid for the host name';
  const shown = reason
    .replace(DETAIL, '')
    .replace(URL_TEXT, ' ')
    .replace(EMAIL, ' ')
    .replace(IPV6_BRACKETED, ' ')
    .replace(IPV6, ' ')
    .replace(IPV4, ' ')
    .replace(HOST_NAME, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .replace(/\(\)|\[\]/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s,;:-]+|[\s,;:-]+$/g, '');
  return shown === '' ? NO_REASON : shown;
}
