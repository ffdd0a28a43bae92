import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { CLOCK, type Clock } from '#runtime';
import type { MaintenanceWindowEntity } from './maintenance-window.entity.js';
import { MaintenanceWindowsRepository } from './maintenance-windows.repository.js';
import { MaintenanceWindowsService } from './maintenance-windows.service.js';
import { windowAtOrEnded, type WindowAt } from './windows.js';

/** Windows changed by another replica are seen within this long (this replica's changes at once). */
export const CALENDAR_REFRESH_MS = 30_000;

interface Cached {
  readonly window: MaintenanceWindowEntity;
  /**
   * The monitors it names as a set, or null for every monitor of the account: asked once per
   * result ingested and per monitor of a summary, of windows naming up to 1000 monitors each.
   */
  readonly named: ReadonlySet<string> | null;
  at: WindowAt | null;
  computedAt: number;
  /** The answer holds until this instant (the next start or the end of the covering). */
  validUntil: number;
}

/** Whether the window applies to the monitor (appliesTo in windows.ts, over the cached set). */
function names(cached: Cached, monitorId: string): boolean {
  return cached.named === null || cached.named.has(monitorId);
}

/** A monitor covered by maintenance now: until when, and by which window. */
export interface Cover {
  readonly endsAt: number;
  readonly windowId: string;
}

/**
 * Every account's maintenance windows in memory, so the check path asks "is this monitor in
 * maintenance now?" without a query (docs/decisions/0026-maintenance-windows.md). Loaded at start,
 * updated at once on changes made through this process, and reloaded every CALENDAR_REFRESH_MS
 * (changes made through other replicas). Each window's answer is cached until its next boundary.
 */
@Injectable()
export class MaintenanceCalendar implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Maintenance');
  private byAccount = new Map<string, Map<string, Cached>>();
  /** Windows whose rule the recurrence library gave up on (logged once each). */
  private readonly unsearchable = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** Changes made here while a reload reads the table: applied again over what it read. */
  private duringReload: { window: MaintenanceWindowEntity; deleted: boolean }[] | null = null;

  constructor(
    private readonly repository: MaintenanceWindowsRepository,
    service: MaintenanceWindowsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    service.onChange((window, deleted) => {
      this.duringReload?.push({ window, deleted });
      this.apply(window, deleted, this.byAccount);
    });
  }

  async onModuleInit(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reload(), CALENDAR_REFRESH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads every window again; a failure keeps what is known (logged) and is retried on the next tick. */
  async reload(): Promise<void> {
    const local: { window: MaintenanceWindowEntity; deleted: boolean }[] = [];
    this.duringReload = local;
    try {
      const windows = await this.repository.all();
      const next = new Map<string, Map<string, Cached>>();
      for (const window of windows) this.put(window, next);
      for (const change of local) this.apply(change.window, change.deleted, next);
      this.byAccount = next;
    } catch (error) {
      this.logger.warn(`maintenance windows not reloaded: ${String(error)}`);
    } finally {
      if (this.duringReload === local) this.duringReload = null;
    }
  }

  /** The window covering the monitor at `at` (Unix s) that ends last, or null. */
  coverOf(accountId: string, monitorId: string, at: number): Cover | null {
    let cover: Cover | null = null;
    for (const cached of this.byAccount.get(accountId)?.values() ?? []) {
      if (!names(cached, monitorId)) continue;
      const now = this.answer(cached, at);
      if (now.covers && now.coverEndsAt !== null && (cover === null || now.coverEndsAt > cover.endsAt)) {
        cover = { endsAt: now.coverEndsAt, windowId: cached.window.id };
      }
    }
    return cover;
  }

  /**
   * Whether any window of the account names the monitor (or all its monitors), whatever its
   * state: only such a monitor can have a result taken in maintenance worth a lookup at start.
   */
  concerns(accountId: string, monitorId: string): boolean {
    for (const cached of this.byAccount.get(accountId)?.values() ?? []) {
      if (names(cached, monitorId)) return true;
    }
    return false;
  }

  /** The account's active windows with what they are at `at`, for the public pages. */
  windowsOf(accountId: string, at: number): { window: MaintenanceWindowEntity; at: WindowAt }[] {
    return [...(this.byAccount.get(accountId)?.values() ?? [])]
      .filter((c) => c.window.active)
      .map((c) => ({ window: c.window, at: this.answer(c, at) }));
  }

  /** Seconds now, from the injected clock. */
  now(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private answer(cached: Cached, at: number): WindowAt {
    if (cached.at === null || at >= cached.validUntil || at < cached.computedAt) {
      const answer = windowAtOrEnded(cached.window, at, (error) => {
        if (!this.unsearchable.has(cached.window.id)) {
          this.unsearchable.add(cached.window.id);
          this.logger.error(
            `maintenance window ${cached.window.id}: its rule cannot be searched (${String(error)}); it covers nothing until it is changed`,
          );
        }
      });
      cached.at = answer;
      cached.computedAt = at;
      cached.validUntil = Math.min(answer.coverEndsAt ?? Infinity, answer.nextStartAt ?? Infinity);
    }
    return cached.at;
  }

  private apply(window: MaintenanceWindowEntity, deleted: boolean, into: Map<string, Map<string, Cached>>): void {
    if (deleted) into.get(window.accountId)?.delete(window.id);
    else this.put(window, into);
  }

  private put(window: MaintenanceWindowEntity, into: Map<string, Map<string, Cached>>): void {
    let windows = into.get(window.accountId);
    if (!windows) into.set(window.accountId, (windows = new Map<string, Cached>()));
    const named = window.monitors.length === 0 ? null : new Set(window.monitors);
    windows.set(window.id, { window: { ...window }, named, at: null, computedAt: 0, validUntil: 0 });
  }
}
