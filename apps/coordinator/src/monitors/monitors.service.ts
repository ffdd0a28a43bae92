import { Inject, Injectable } from '@nestjs/common';
import { isProbedType, splitSettings, type ProbedSettings } from '#contracts';
import { CLOCK, newObjectId, unixSeconds, type Clock } from '#runtime';
import type { CreateGate } from '../auth/account-gate.js';
import { paginationOf, pageRequest } from '../common/pagination.js';
import { checkInput, isPlainObject } from '#validation';
import { literalEgressProblem, resolverEgressProblem } from '../common/egress-check.js';
import { CoordinatorConfig } from '../config.js';
import { notFound, validationError } from '../errors.js';
import { newHeartbeatToken } from '../heartbeats/heartbeat.js';
import { MonitorEvents } from './monitor-events.js';
import { regionsProblem, typeKeyOf } from './monitor-regions.js';
import { MonitorEntity } from './monitor.entity.js';
import { CreateMonitorDto, ListMonitorsQuery, MONITOR_LIMITS, UpdateMonitorDto } from './monitor.dto.js';
import { monitorJsonText, toMonitorActivityJson, toMonitorJson, type MonitorJson } from './monitor.mapper.js';
import {
  MonitorsRepository,
  UnknownContactsError,
  UnknownRegionsError,
  type MonitorRecord,
} from './monitors.repository.js';
import { escalationContactPaths, rulesWithDefaults } from './notification-rules.js';

export const DEFAULT_MONITORS_PER_PAGE = 50;

/**
 * An inactive subscription refuses creating monitors, paused ones too (they are checked all the
 * same), and resuming them; PUT sets `active` as given (docs/decisions/0018-abuse-limits-and-quotas.md).
 */
const CREATE_REFUSED = 'The account subscription is not active; no monitor can be created.';
const RESUME_REFUSED = 'The account subscription is not active; the monitor stays paused.';

@Injectable()
export class MonitorsService {
  constructor(
    private readonly monitors: MonitorsRepository,
    private readonly events: MonitorEvents,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The monitor methods take the request's origin: a heartbeat monitor's ping URL is under
   * PUBLIC_URL when set, else under the origin the client reached (docs/decisions/0027).
   * The list answers its `data` as JSON text (monitorJsonText).
   */
  async list(accountId: string, query: ListMonitorsQuery, origin: string): Promise<string> {
    const page = pageRequest(query, DEFAULT_MONITORS_PER_PAGE);
    const { total, rows } = await this.monitors.list({
      accountId,
      active: query.active === undefined ? undefined : query.active === 'true',
      type: query.monitor_type,
      sort: query.sort ?? 'created_at',
      order: query.order ?? 'desc',
      page,
    });
    const now = unixSeconds(this.clock);
    const base = this.pingBase(origin);
    const monitors = rows.map((row) => monitorJsonText(row, now, base)).join(',');
    return `{"monitors":[${monitors}],"pagination":${JSON.stringify(paginationOf(page, total))}}`;
  }

  async get(accountId: string, id: string, origin: string): Promise<MonitorJson> {
    return toMonitorJson(await this.load(accountId, id), unixSeconds(this.clock), this.pingBase(origin));
  }

  async create(accountId: string, dto: CreateMonitorDto, origin: string): Promise<MonitorJson> {
    const now = this.clock.now();
    const seconds = Math.floor(now / 1000);
    const { type, settings } = splitSettings(dto.settings);
    const monitor = Object.assign(new MonitorEntity(), {
      id: newObjectId(now),
      accountId,
      name: dto.name,
      active: dto.active ?? true,
      checkInterval: dto.check_interval ?? MONITOR_LIMITS.checkInterval.default,
      timeout: dto.timeout ?? MONITOR_LIMITS.timeout.default,
      failThreshold: dto.fail_threshold ?? MONITOR_LIMITS.failThreshold.default,
      regions: dto.regions ?? [],
      monitorType: type,
      settings,
      heartbeatToken: type === 'heartbeat' ? newHeartbeatToken() : null,
      notificationRules: rulesWithDefaults(dto.notification_rules),
      lastStatus: 'pending' as const,
      lastStatusChange: seconds,
      lastCheckedAt: null,
      createdAt: seconds,
      updatedAt: seconds,
    });
    const contactIds = dto.contacts ?? [];
    // Quota and subscription, judged with the account locked (docs/decisions/0018-abuse-limits-and-quotas.md).
    await this.saveChecked(monitor, contactIds, true, {
      limit: this.config.MAX_MONITORS_PER_ACCOUNT,
      whenInactive: CREATE_REFUSED,
    });
    return toMonitorJson({ monitor, contactIds }, seconds, this.pingBase(origin));
  }

  /** PUT: the monitor must exist (404) before the body is judged (422). */
  async update(accountId: string, id: string, body: unknown, origin: string): Promise<MonitorJson> {
    const record = await this.load(accountId, id);
    const input = body === undefined ? {} : body;
    const { value: dto, problems } = checkInput(UpdateMonitorDto, input);
    // `regions` against the type the monitor will have, reported with every other problem at once.
    const given = isPlainObject(input) ? input : {};
    const regions = regionsProblem(
      typeKeyOf(given.settings) ?? record.monitor.monitorType,
      given.regions === undefined ? record.monitor.regions : given.regions,
    );
    if (regions && !problems.some((p) => p.field === 'regions')) problems.push({ field: 'regions', message: regions });
    if (!dto || problems.length > 0) throw validationError(problems);
    const monitor = record.monitor;
    if (dto.name !== undefined) monitor.name = dto.name;
    if (dto.active !== undefined) monitor.active = dto.active;
    if (dto.check_interval !== undefined) monitor.checkInterval = dto.check_interval;
    if (dto.timeout !== undefined) monitor.timeout = dto.timeout;
    if (dto.fail_threshold !== undefined) monitor.failThreshold = dto.fail_threshold;
    if (dto.regions !== undefined) monitor.regions = dto.regions;
    if (dto.notification_rules !== undefined) monitor.notificationRules = rulesWithDefaults(dto.notification_rules);
    if (dto.settings !== undefined) {
      const { type, settings } = splitSettings(dto.settings);
      monitor.monitorType = type;
      monitor.settings = settings;
      // A heartbeat keeps its token (and so its ping URL) while it stays one.
      monitor.heartbeatToken = type === 'heartbeat' ? (monitor.heartbeatToken ?? newHeartbeatToken()) : null;
    }
    monitor.updatedAt = unixSeconds(this.clock);
    await this.saveChecked(monitor, dto.contacts, false);
    return toMonitorJson(
      { monitor, contactIds: dto.contacts ?? record.contactIds },
      monitor.updatedAt,
      this.pingBase(origin),
    );
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.monitors.delete(accountId, id))) throw notFound.monitor();
    this.events.emit({ kind: 'deleted', monitorId: id });
  }

  async pause(accountId: string, id: string) {
    return this.setActive(accountId, id, false);
  }

  /** 404 first, then 402 while the subscription is inactive (judged under the account's lock). */
  async resume(accountId: string, id: string) {
    const monitor = await this.load(accountId, id);
    return this.setActive(accountId, monitor.monitor.id, true, RESUME_REFUSED);
  }

  private async setActive(accountId: string, id: string, active: boolean, whenInactive?: string) {
    const now = Math.floor(this.clock.now() / 1000);
    const monitor = await this.monitors.setActive(accountId, id, active, now, whenInactive);
    if (!monitor) throw notFound.monitor();
    this.events.emit({ kind: 'saved', monitor });
    return toMonitorActivityJson(monitor);
  }

  /** Where ping URLs live: PUBLIC_URL, else the origin the request reached. */
  private pingBase(origin: string): string {
    return this.config.PUBLIC_URL ?? origin;
  }

  private async load(accountId: string, id: string): Promise<MonitorRecord> {
    const record = await this.monitors.findOne(accountId, id);
    if (!record) throw notFound.monitor();
    return record;
  }

  private async saveChecked(
    monitor: MonitorEntity,
    contactIds: string[] | undefined,
    isNew: boolean,
    gate?: CreateGate,
  ): Promise<void> {
    const regions = regionsProblem(monitor.monitorType, monitor.regions);
    if (regions) throw validationError([{ field: 'regions', message: regions }]);
    // Only a probed type has a target the egress policy judges; a heartbeat is never connected to.
    if (isProbedType(monitor.monitorType)) {
      const settings = monitor.settings as ProbedSettings;
      const blocked = [
        ...literalEgressProblem(`settings.${monitor.monitorType}.url`, settings.url, this.config.egress()),
        ...('resolver' in settings
          ? resolverEgressProblem(`settings.${monitor.monitorType}.resolver`, settings.resolver, this.config.egress())
          : []),
      ];
      if (blocked.length > 0) throw validationError(blocked);
    }
    try {
      await this.monitors.save(monitor, contactIds, isNew, gate);
      this.events.emit({ kind: 'saved', monitor });
    } catch (error) {
      if (error instanceof UnknownRegionsError) {
        throw validationError(
          // Named like the checker's own problem with `regions` (an unknown public id).
          error.regions.map((region) => ({
            field: 'regions',
            message: `${region} is not a known region (a public one, or one of this account's private regions)`,
          })),
        );
      }
      if (!(error instanceof UnknownContactsError)) throw error;
      // Each unknown id under every field that names it: the contact list, the escalation steps.
      const unknown = new Set(error.contactIds);
      const named = [
        ...(contactIds ?? []).map((id, i) => ({ id, field: `contacts[${i}]` })),
        ...escalationContactPaths(rulesWithDefaults(monitor.notificationRules)),
      ];
      throw validationError(
        named
          .filter(({ id }) => unknown.has(id))
          .map(({ field }) => ({ field, message: 'is not a contact of this account' })),
      );
    }
  }
}
