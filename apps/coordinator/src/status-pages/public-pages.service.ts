import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { CheckResultsRepository } from '../history/check-results.repository.js';
import { combine, dayStart, periodWindow, uptimePercent, type Figures, type StatsPeriod } from '../history/stats.js';
import { MonitorEvents } from '../monitors/monitor-events.js';
import { addressBucket } from '../rate-limit/client-address.js';
import { FailureThrottle } from '../rate-limit/failure-throttle.js';
import type { Decision } from '../rate-limit/gcra.js';
import { MaintenanceCalendar } from '../maintenance/maintenance-calendar.js';
import { MaintenanceWindowsService } from '../maintenance/maintenance-windows.service.js';
import { appliesTo, shownOccurrence } from '../maintenance/windows.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { effectiveStatus } from '../monitors/monitor-status.js';
import { isPasswordHash, verifyPassword } from '../secrets/password-hash.js';
import {
  overallOf,
  publicReason,
  renderPublicPage,
  type PublicDay,
  type PublicMaintenance,
  type PublicMonitor,
  type PublicPage,
} from './public-page.js';
import { PagePasswordCheck } from './page-password-check.js';
import { StatusPageEntity } from './status-page.entity.js';
import { StatusPagesRepository } from './status-pages.repository.js';
import { StatusPagesService } from './status-pages.service.js';
import { VerifiedCredentials } from './verified-credentials.js';

/** A rendered page is served from memory this long: a traffic spike on a bad day stays off the database. */
export const PUBLIC_PAGE_CACHE_MS = 15_000;
/** Incidents listed at most (newest first). */
export const PUBLIC_PAGE_INCIDENTS = 20;

/**
 * A page ready to serve: its settings (for basic auth), the JSON answer's body
 * (`{"status":"ok","data":<the model>}`, serialised once per render rather than once per
 * request) and the HTML, plain and gzipped.
 */
export interface RenderedPage {
  page: StatusPageEntity;
  json: string;
  html: string;
  htmlGzip: Buffer;
}

/** A page as rendered at `at` (clock ms). */
interface Rendered {
  at: number;
  value: RenderedPage;
}

/** A render under way: its identity tells whether a change has overtaken it. */
interface Render {
  result: Promise<Rendered | null>;
}

export type PublicAnswer =
  | { kind: 'missing' }
  | { kind: 'unauthorized'; realm: string }
  /** Too many wrong basic-auth credentials from this client address: 429 (docs/decisions/0018-abuse-limits-and-quotas.md). */
  | { kind: 'throttled'; decision: Decision }
  | { kind: 'ok'; rendered: RenderedPage };

const PAGE_ID = /^[0-9a-f]{24}$/;

/**
 * The public side of status pages: the page by id or by custom domain, its basic auth, the
 * model gathered from the monitors, the daily roll-ups and the incidents, and a short
 * in-memory cache (per page id, timed by the injected clock, dropped when the page or one of
 * its monitors changes through this process).
 */
@Injectable()
export class PublicPagesService {
  private readonly rendered = new Map<string, Rendered>();
  /** The render of a page under way, at most one per page: requests that find the page expired wait for it. */
  private readonly rendering = new Map<string, Render>();
  private readonly domains = new Map<string, { at: number; pageId: string }>();
  /** Credentials scrypt already verified (verified-credentials.ts). */
  private readonly verified = new VerifiedCredentials();

  constructor(
    private readonly pages: StatusPagesRepository,
    private readonly results: CheckResultsRepository,
    private readonly throttle: FailureThrottle,
    statusPages: StatusPagesService,
    monitorEvents: MonitorEvents,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly maintenance: MaintenanceCalendar,
    maintenanceWindows: MaintenanceWindowsService,
    private readonly hasher: PagePasswordCheck,
  ) {
    // A window changed: any page of its account may show it (pages are few; dropping all is simplest).
    maintenanceWindows.onChange(() => {
      this.rendered.clear();
      this.rendering.clear();
    });
    statusPages.onChange((pageId) => {
      this.forget(pageId);
      this.verified.forgetPage(pageId);
      this.domains.clear();
    });
    monitorEvents.subscribe((change) => {
      const monitorId = change.kind === 'deleted' ? change.monitorId : change.monitor.id;
      for (const [pageId, entry] of this.rendered) {
        if (entry.value.page.monitors.includes(monitorId)) this.rendered.delete(pageId);
      }
      // A render under way may have read the monitor before the change: none of them is kept.
      this.rendering.clear();
    });
  }

  /** `address`: the client's socket address, whose failed basic-auth attempts are counted. */
  async byId(pageId: string, authorization: string | undefined, address: string | undefined): Promise<PublicAnswer> {
    if (!PAGE_ID.test(pageId)) return { kind: 'missing' };
    return this.answer(pageId, authorization, address);
  }

  /** The page whose custom domain is the request's Host (port dropped, any case). */
  async byHost(
    host: string | undefined,
    authorization: string | undefined,
    address: string | undefined,
  ): Promise<PublicAnswer> {
    const domain = domainOfHost(host);
    if (domain === null) return { kind: 'missing' };
    const now = this.clock.now();
    let known = this.domains.get(domain);
    if (!known || now - known.at >= PUBLIC_PAGE_CACHE_MS) {
      const pageId = await this.pages.idOfDomain(domain);
      if (pageId === null) return { kind: 'missing' };
      known = { at: now, pageId };
      this.domains.set(domain, known);
    }
    return this.answer(known.pageId, authorization, address);
  }

  private async answer(
    pageId: string,
    authorization: string | undefined,
    address: string | undefined,
  ): Promise<PublicAnswer> {
    const entry = await this.renderedPage(pageId);
    if (entry === null) return { kind: 'missing' };
    const { page } = entry.value;
    if (page.basicAuth !== null) {
      const refused = await this.checkBasicAuth(page, page.basicAuth, authorization, address);
      if (refused) return refused;
    }
    return { kind: 'ok', rendered: entry.value };
  }

  /**
   * The page as rendered within the last 15 s, or null when there is no such page. An expired or
   * dropped page is rendered once, however many requests ask for it meanwhile: they all wait for
   * that one render (a crowd on a bad day must not render it once each, nor reach the database
   * once each). A render that a change overtook answers the requests that were waiting for it but
   * is not kept (`forget` removed it from `rendering`): the next request renders again.
   */
  private renderedPage(pageId: string): Promise<Rendered | null> {
    const now = this.clock.now();
    const cached = this.rendered.get(pageId);
    if (cached && now - cached.at < PUBLIC_PAGE_CACHE_MS) return Promise.resolve(cached);
    const pending = this.rendering.get(pageId);
    if (pending) return pending.result;
    // Listed before it starts, so that it is removed even if it fails before its first await.
    const render = {} as Render;
    this.rendering.set(pageId, render);
    render.result = this.render(pageId, now, render);
    return render.result;
  }

  private async render(pageId: string, now: number, render: Render): Promise<Rendered | null> {
    try {
      const page = await this.pages.findPublic(pageId);
      const entry: Rendered | null = page ? { at: now, value: await this.renderPage(page) } : null;
      if (this.rendering.get(pageId) === render) {
        if (entry) this.rendered.set(pageId, entry);
        else this.rendered.delete(pageId);
      }
      return entry;
    } finally {
      if (this.rendering.get(pageId) === render) this.rendering.delete(pageId);
    }
  }

  private async renderPage(page: StatusPageEntity): Promise<RenderedPage> {
    const model = await this.model(page);
    const html = renderPublicPage(model);
    const json = JSON.stringify({ status: 'ok', data: model });
    return { page, json, html, htmlGzip: gzipSync(html) };
  }

  /** Drops the page's render, kept or under way. */
  private forget(pageId: string): void {
    this.rendered.delete(pageId);
    this.rendering.delete(pageId);
  }

  /**
   * Basic auth under the client address's failure budget (docs/decisions/0018-abuse-limits-and-quotas.md):
   * no credentials at all is a browser's first visit, answered with the challenge and not counted;
   * wrong credentials are counted, and once the budget is spent every attempt is 429, the right
   * one too (a password can be guessed, so a 200 would tell a throttled guesser that it won). The
   * right credentials within the budget cost nothing.
   *
   * The stored password is a scrypt hash (docs/decisions/0020-secrets-at-rest.md); credentials it
   * verified are remembered a while, and so is each address answered 200 with them: that address
   * already has its answer, so its views skip both scrypt and the budget's read, until a failure
   * is charged to it here (its budget may then be spent: read again). A new address with
   * remembered credentials still has its budget read.
   */
  private async checkBasicAuth(
    page: StatusPageEntity,
    stored: string,
    authorization: string | undefined,
    address: string | undefined,
  ): Promise<PublicAnswer | null> {
    if (authorization === undefined || authorization === '') return { kind: 'unauthorized', realm: page.name };
    const now = this.clock.now();
    const key = this.verified.keyOf(page.id, authorization);
    const bucket = addressBucket(address);
    const known = this.verified.verified(key, stored, now);
    if (known && this.verified.admitted(key, bucket)) return null;
    // The budget is read before the password is hashed: a guesser past its budget costs no scrypt.
    const spent = await this.throttle.spent('basic_auth', address);
    if (spent) return { kind: 'throttled', decision: spent };
    if (known || (await basicAuthMatches(authorization, stored, this.hasher))) {
      this.verified.remember(key, page.id, stored, bucket, now);
      return null;
    }
    this.verified.forgetAddress(bucket);
    const refusal = await this.throttle.failed('basic_auth', address);
    return refusal ? { kind: 'throttled', decision: refusal } : { kind: 'unauthorized', realm: page.name };
  }

  /** Gathers what the page shows: never a monitor's URL or settings, only names and figures. */
  private async model(page: StatusPageEntity): Promise<PublicPage> {
    const now = unixSeconds(this.clock);
    const window = periodWindow(`${page.period}d` as StatsPeriod, now);
    if (window.source !== 'rollups') throw new Error(`status page period ${page.period} is not a roll-up period`);
    const byId = new Map((await this.pages.monitorsOf(page)).map((m) => [m.id, m]));
    // In the page's order; a monitor deleted meanwhile is simply not shown.
    const monitors = page.monitors.flatMap((id) => byId.get(id) ?? []);
    const shown: PublicMonitor[] = [];
    for (const monitor of monitors) {
      const rollups = await this.results.rollups(monitor.id, window.fromDay, window.toDay);
      const days: PublicDay[] = [];
      const all: Figures[] = [];
      for (let day = window.fromDay; day <= window.toDay; day++) {
        const figures = combine(rollups.filter((r) => r.day === day));
        all.push(figures);
        days.push({
          date: new Date(dayStart(day) * 1000).toISOString().slice(0, 10),
          uptime_percent: uptimePercent(figures),
          checks: figures.checks,
          avg_response_ms: figures.countResponse > 0 ? Math.round(figures.sumResponseMs / figures.countResponse) : null,
        });
      }
      shown.push({
        name: monitor.name,
        // The same overlay as the API: a monitor Picket cannot see is `unknown`, never its old
        // status (docs/decisions/0001-truth-when-blind.md). Paused says paused either way.
        // Paused outranks maintenance; maintenance outranks what the checks find (0026).
        status: !monitor.active
          ? 'paused'
          : this.maintenance.coverOf(monitor.accountId, monitor.id, now) !== null
            ? 'maintenance'
            : effectiveStatus(monitor, now),
        uptime_percent: uptimePercent(combine(all)),
        days,
      });
    }
    const incidents = await this.pages.recentIncidents(
      page.accountId,
      monitors.map((m) => m.id),
      window.from,
      PUBLIC_PAGE_INCIDENTS,
    );
    return {
      name: page.name,
      period: page.period,
      overall: overallOf(shown),
      monitors: shown,
      incidents: incidents.map((incident) => ({
        monitor: byId.get(incident.monitorId)?.name ?? incident.monitorName,
        started_at: incident.startedAt,
        resolved_at: incident.resolvedAt,
        // Without the target's address, host, port or URL: the API keeps the whole reason.
        ...(page.showIncidentReasons ? { reason: publicReason(incident.reason) } : {}),
      })),
      maintenance: this.maintenanceOf(page.accountId, monitors, now),
      generated_at: now,
    };
  }

  /** Windows covering some of the page's monitors, under way or starting within 7 days, soonest first. */
  private maintenanceOf(accountId: string, monitors: readonly MonitorEntity[], now: number): PublicMaintenance[] {
    const shown: PublicMaintenance[] = [];
    for (const { window, at } of this.maintenance.windowsOf(accountId, now)) {
      const occurrence = shownOccurrence(window, at, now);
      if (occurrence === null) continue;
      const covered = monitors.filter((m) => appliesTo(window.monitors, m.id));
      if (covered.length === 0) continue;
      shown.push({
        name: window.name,
        monitors: covered.map((m) => m.name),
        starts_at: occurrence.startsAt,
        ends_at: occurrence.endsAt,
        in_progress: occurrence.inProgress,
      });
    }
    return shown.sort((a, b) => a.starts_at - b.starts_at || a.name.localeCompare(b.name));
  }
}

/** The host name of a Host header: port and a trailing dot dropped, lower case; null when empty. */
export function domainOfHost(host: string | undefined): string | null {
  const name = (host ?? '').trim().replace(/:\d*$/, '').replace(/\.$/, '').toLowerCase();
  return name === '' || name.startsWith('[') ? null : name;
}

const digest = (value: Buffer | string) => createHash('sha256').update(value).digest();

/**
 * Whether `Authorization: Basic …` carries exactly the `user:password` that `stored` was made
 * from: a scrypt hash (password-hash.ts), or, for a row not yet hashed (written by an older
 * version, hashed at the next boot), the plain value, both sides hashed first so the comparison
 * takes the same time whatever the guess and its length.
 */
export async function basicAuthMatches(
  header: string | undefined,
  stored: string,
  hasher: Pick<PagePasswordCheck, 'verify'> = { verify: verifyPassword },
): Promise<boolean> {
  const match = /^basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header ?? '');
  const given = match?.[1] === undefined ? Buffer.alloc(0) : Buffer.from(match[1], 'base64');
  if (isPasswordHash(stored)) return match !== null && (await hasher.verify(given, stored));
  return timingSafeEqual(digest(given), digest(stored)) && match !== null;
}
