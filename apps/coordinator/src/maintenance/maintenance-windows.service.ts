import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, newObjectId, unixSeconds, type Clock } from '#runtime';
import { paginationOf, pageRequest, type Pagination } from '../common/pagination.js';
import { validateInput } from '../common/validate.js';
import { notFound, validationError, type FieldProblem } from '../errors.js';
import {
  DEFAULT_MAINTENANCE_WINDOWS_PER_PAGE,
  MAINTENANCE_LIMITS,
  UpdateMaintenanceWindowDto,
  type CreateMaintenanceWindowDto,
  type ListMaintenanceWindowsQuery,
} from './maintenance-window.dto.js';
import { MaintenanceWindowEntity } from './maintenance-window.entity.js';
import { MaintenanceWindowsRepository } from './maintenance-windows.repository.js';
import { canonicalTimeZone } from './recurrence.js';
import { PREVIEW_COUNT, upcomingOccurrences, windowAt, windowAtOrEnded, type WindowState } from './windows.js';

export interface MaintenanceWindowJson {
  id: string;
  name: string;
  monitors: string[];
  starts_at: number;
  ends_at: number | null;
  rrule: string | null;
  duration: number | null;
  timezone: string;
  active: boolean;
  state: WindowState;
  next_start_at: number | null;
  created_at: number;
  updated_at: number;
}

const UNSEARCHABLE = 'has no occurrence the calendar can find (a rule such as BYMONTH=2;BYMONTHDAY=30 never occurs)';

/** One occurrence of a window as the preview lists it. */
export interface OccurrenceJson {
  starts_at: number;
  ends_at: number;
}

export interface MaintenancePreviewJson {
  occurrences: OccurrenceJson[];
}

/** The fields that make a window one-off or recurring, as they will be stored. */
interface Shape {
  starts_at: number;
  ends_at: number | null;
  rrule: string | null;
  duration: number | null;
}

/**
 * Which fields go together (docs/decisions/0026-maintenance-windows.md): one-off windows have
 * `ends_at` after `starts_at` and no `rrule`/`duration`; recurring ones have `rrule` and
 * `duration` and no `ends_at`.
 */
export function shapeProblems(shape: Shape): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (shape.rrule === null) {
    if (shape.ends_at === null) {
      problems.push({ field: 'ends_at', message: 'is required for a one-off window (or give rrule and duration)' });
    } else if (shape.ends_at <= shape.starts_at) {
      problems.push({ field: 'ends_at', message: 'must be after starts_at' });
    }
    if (shape.duration !== null)
      problems.push({ field: 'duration', message: 'is only for a recurring window (with rrule)' });
  } else {
    if (shape.ends_at !== null) {
      problems.push({ field: 'ends_at', message: 'must not be given with rrule (a recurring window has a duration)' });
    }
    if (shape.duration === null) problems.push({ field: 'duration', message: 'is required with rrule' });
  }
  return problems;
}

/** Maintenance windows of an account: the fields that go together, ownership of monitors, computed state. */
@Injectable()
export class MaintenanceWindowsService {
  private readonly listeners: ((window: MaintenanceWindowEntity, deleted: boolean) => void)[] = [];

  constructor(
    private readonly windows: MaintenanceWindowsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Called after a window was created, changed or deleted through this process (the calendar, the public pages). */
  onChange(listener: (window: MaintenanceWindowEntity, deleted: boolean) => void): void {
    this.listeners.push(listener);
  }

  async list(
    accountId: string,
    query: ListMaintenanceWindowsQuery,
  ): Promise<{ maintenance_windows: MaintenanceWindowJson[]; pagination: Pagination }> {
    const page = pageRequest(query, DEFAULT_MAINTENANCE_WINDOWS_PER_PAGE);
    const { total, windows } = await this.windows.list(accountId, query.order ?? 'desc', page);
    return { maintenance_windows: windows.map((w) => this.toJson(w)), pagination: paginationOf(page, total) };
  }

  async get(accountId: string, id: string): Promise<MaintenanceWindowJson> {
    return this.toJson(await this.load(accountId, id));
  }

  async create(accountId: string, dto: CreateMaintenanceWindowDto): Promise<MaintenanceWindowJson> {
    const window = this.fromCreate(accountId, dto);
    await this.save(window, true, []);
    return this.toJson(window);
  }

  /**
   * `POST /api/maintenance_windows/preview`: the window a create of `dto` would store, judged as
   * a create judges it (the account's monitors included), and its next PREVIEW_COUNT occurrences
   * from now (one under way included), from the same core as `next_start_at`. Nothing is stored.
   */
  async preview(accountId: string, dto: CreateMaintenanceWindowDto): Promise<MaintenancePreviewJson> {
    const window = this.fromCreate(accountId, dto);
    await this.judge(window, []);
    let occurrences;
    try {
      occurrences = upcomingOccurrences(window, unixSeconds(this.clock), PREVIEW_COUNT);
    } catch {
      throw validationError([{ field: 'rrule', message: UNSEARCHABLE }]);
    }
    return { occurrences: occurrences.map((o) => ({ starts_at: o.startsAt, ends_at: o.endsAt })) };
  }

  /** The window a create of `dto` makes (not judged, not stored). */
  private fromCreate(accountId: string, dto: CreateMaintenanceWindowDto): MaintenanceWindowEntity {
    const now = unixSeconds(this.clock);
    return Object.assign(new MaintenanceWindowEntity(), {
      id: newObjectId(this.clock.now()),
      accountId,
      name: dto.name,
      monitors: dto.monitors,
      startsAt: dto.starts_at,
      endsAt: dto.ends_at ?? null,
      rrule: dto.rrule ?? null,
      duration: dto.duration ?? null,
      timezone: canonicalTimeZone(dto.timezone ?? MAINTENANCE_LIMITS.defaultTimezone),
      active: dto.active ?? true,
      createdAt: now,
      updatedAt: now,
    });
  }

  /**
   * PUT: only supplied fields change; `null` clears `ends_at`, `rrule` or `duration` (to turn a
   * recurring window into a one-off one and back). The window must exist (404) before the body
   * is judged (422), and the result is judged whole.
   */
  async update(accountId: string, id: string, body: unknown): Promise<MaintenanceWindowJson> {
    const window = await this.load(accountId, id);
    const stored = [...window.monitors];
    const dto = validateInput(UpdateMaintenanceWindowDto, body === undefined ? {} : body);
    if (dto.name !== undefined) window.name = dto.name;
    if (dto.monitors !== undefined) window.monitors = dto.monitors;
    if (dto.starts_at !== undefined) window.startsAt = dto.starts_at;
    if (dto.ends_at !== undefined) window.endsAt = dto.ends_at;
    if (dto.rrule !== undefined) window.rrule = dto.rrule;
    if (dto.duration !== undefined) window.duration = dto.duration;
    if (dto.timezone !== undefined) window.timezone = canonicalTimeZone(dto.timezone);
    if (dto.active !== undefined) window.active = dto.active;
    window.updatedAt = unixSeconds(this.clock);
    await this.save(window, false, stored);
    return this.toJson(window);
  }

  async delete(accountId: string, id: string): Promise<void> {
    const window = await this.windows.findOne(accountId, id);
    if (!window || !(await this.windows.delete(accountId, id))) throw notFound.maintenanceWindow();
    this.changed(window, true);
  }

  /** Judges the window (judge), then stores it and tells the listeners. */
  private async save(window: MaintenanceWindowEntity, isNew: boolean, stored: readonly string[]): Promise<void> {
    await this.judge(window, stored);
    await this.windows.save(window, isNew);
    this.changed(window, false);
  }

  /**
   * The combination of fields and the monitors: 422 with one detail per field. Ids already stored
   * are not judged again: a monitor deleted meanwhile must not make the window's own GET body
   * refused on PUT.
   */
  private async judge(window: MaintenanceWindowEntity, stored: readonly string[]): Promise<void> {
    const problems = shapeProblems({
      starts_at: window.startsAt,
      ends_at: window.endsAt,
      rrule: window.rrule,
      duration: window.duration,
    });
    if (problems.length === 0 && window.rrule !== null) {
      // A rule the library cannot search (`FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30` never occurs: it
      // gives up after 10,000 iterations) would fail every later question about the window.
      try {
        windowAt(window, unixSeconds(this.clock));
      } catch {
        problems.push({ field: 'rrule', message: UNSEARCHABLE });
      }
    }
    const fresh = window.monitors.filter((m) => !stored.includes(m));
    const owned = await this.windows.ownedMonitorIds(window.accountId, fresh);
    window.monitors.forEach((monitorId, i) => {
      if (fresh.includes(monitorId) && !owned.has(monitorId)) {
        problems.push({ field: `monitors[${i}]`, message: 'is not a monitor of this account' });
      }
    });
    if (problems.length > 0) throw validationError(problems);
  }

  private changed(window: MaintenanceWindowEntity, deleted: boolean): void {
    for (const listener of this.listeners) listener(window, deleted);
  }

  private async load(accountId: string, id: string): Promise<MaintenanceWindowEntity> {
    const window = await this.windows.findOne(accountId, id);
    if (!window) throw notFound.maintenanceWindow();
    return window;
  }

  private toJson(window: MaintenanceWindowEntity): MaintenanceWindowJson {
    // A row stored before unsearchable rules were refused reads as ended, not as a 500.
    const at = windowAtOrEnded(window, unixSeconds(this.clock), () => undefined);
    return {
      id: window.id,
      name: window.name,
      monitors: window.monitors,
      starts_at: window.startsAt,
      ends_at: window.endsAt,
      rrule: window.rrule,
      duration: window.duration,
      timezone: window.timezone,
      active: window.active,
      state: at.state,
      next_start_at: at.nextStartAt,
      created_at: window.createdAt,
      updated_at: window.updatedAt,
    };
  }
}
