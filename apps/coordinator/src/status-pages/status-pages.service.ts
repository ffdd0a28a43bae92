import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, newObjectId, unixSeconds, type Clock } from '#runtime';
import { paginationOf, pageRequest, type Pagination } from '../common/pagination.js';
import { validateInput } from '../common/validate.js';
import { CoordinatorConfig } from '../config.js';
import { REDACTED } from '../contacts/channels.js';
import { notFound, validationError, type FieldProblem } from '../errors.js';
import { hashPassword } from '../secrets/password-hash.js';
import {
  DEFAULT_STATUS_PAGES_PER_PAGE,
  STATUS_PAGE_LIMITS,
  UpdateStatusPageDto,
  type CreateStatusPageDto,
  type ListStatusPagesQuery,
} from './status-page.dto.js';
import { StatusPageEntity } from './status-page.entity.js';
import { CustomDomainTakenError, StatusPagesRepository } from './status-pages.repository.js';

export interface StatusPageJson {
  id: string;
  name: string;
  monitors: string[];
  period: number;
  custom_domain: string | null;
  show_incident_reasons: boolean;
  basic_auth: typeof REDACTED | null;
  url: string;
  created_at: number;
  updated_at: number;
}

const DOMAIN_TAKEN: FieldProblem = { field: 'custom_domain', message: 'is already used by another status page' };

/** Status pages of an account: defaults, ownership of their monitors, unique custom domains, redaction. */
@Injectable()
export class StatusPagesService {
  private readonly listeners: ((pageId: string) => void)[] = [];

  constructor(
    private readonly pages: StatusPagesRepository,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Called with a page's id after it was created, changed or deleted (the public pages' cache). */
  onChange(listener: (pageId: string) => void): void {
    this.listeners.push(listener);
  }

  async list(
    accountId: string,
    query: ListStatusPagesQuery,
  ): Promise<{ status_pages: StatusPageJson[]; pagination: Pagination }> {
    const page = pageRequest(query, DEFAULT_STATUS_PAGES_PER_PAGE);
    const { total, pages } = await this.pages.list(accountId, query.order ?? 'desc', page);
    return { status_pages: pages.map((p) => this.toJson(p)), pagination: paginationOf(page, total) };
  }

  async get(accountId: string, id: string): Promise<StatusPageJson> {
    return this.toJson(await this.load(accountId, id));
  }

  async create(accountId: string, dto: CreateStatusPageDto): Promise<StatusPageJson> {
    const now = unixSeconds(this.clock);
    const page = Object.assign(new StatusPageEntity(), {
      id: newObjectId(this.clock.now()),
      accountId,
      name: dto.name,
      monitors: dto.monitors,
      period: dto.period ?? STATUS_PAGE_LIMITS.defaultPeriod,
      customDomain: dto.custom_domain ? dto.custom_domain.toLowerCase() : null,
      showIncidentReasons: dto.show_incident_reasons ?? false,
      // Stored as a scrypt hash, never as given (docs/decisions/0020-secrets-at-rest.md).
      basicAuth: dto.basic_auth ? await hashPassword(dto.basic_auth) : null,
      createdAt: now,
      updatedAt: now,
    });
    await this.save(page, true, true);
    return this.toJson(page);
  }

  /**
   * PUT and PATCH alike (docs/decisions/0008-status-pages.md; the same rule as a monitor PUT,
   * docs/decisions/0004-monitors.md): only supplied fields change, a supplied `monitors` replaces
   * the list. The page must exist (404) before the body is judged (422).
   */
  async update(accountId: string, id: string, body: unknown): Promise<StatusPageJson> {
    const page = await this.load(accountId, id);
    const dto = validateInput(UpdateStatusPageDto, body === undefined ? {} : body);
    if (dto.basic_auth === REDACTED && page.basicAuth === null) {
      throw validationError([{ field: 'basic_auth', message: `must be the real value, not ${REDACTED}` }]);
    }
    if (dto.name !== undefined) page.name = dto.name;
    if (dto.monitors !== undefined) page.monitors = dto.monitors;
    if (dto.period !== undefined) page.period = dto.period;
    if (dto.custom_domain !== undefined) page.customDomain = dto.custom_domain ? dto.custom_domain.toLowerCase() : null;
    if (dto.show_incident_reasons !== undefined) page.showIncidentReasons = dto.show_incident_reasons;
    if (dto.basic_auth !== undefined && dto.basic_auth !== REDACTED) {
      page.basicAuth = dto.basic_auth ? await hashPassword(dto.basic_auth) : null;
    }
    page.updatedAt = unixSeconds(this.clock);
    // Stored monitors are not judged again: one deleted meanwhile was already taken off the page.
    await this.save(page, false, dto.monitors !== undefined);
    return this.toJson(page);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.pages.delete(accountId, id))) throw notFound.statusPage();
    this.changed(id);
  }

  private async save(page: StatusPageEntity, isNew: boolean, checkMonitors: boolean): Promise<void> {
    const problems: FieldProblem[] = [];
    if (checkMonitors) {
      const owned = await this.pages.ownedMonitorIds(page.accountId, page.monitors);
      page.monitors.forEach((monitorId, i) => {
        if (!owned.has(monitorId))
          problems.push({ field: `monitors[${i}]`, message: 'is not a monitor of this account' });
      });
    }
    if (page.customDomain !== null) {
      if (page.customDomain === this.ownHost()) {
        problems.push({ field: 'custom_domain', message: 'is the address of this Picket (PUBLIC_URL) itself' });
      } else if (await this.pages.domainTaken(page.customDomain, page.id)) {
        problems.push(DOMAIN_TAKEN);
      }
    }
    if (problems.length > 0) throw validationError(problems);
    try {
      await this.pages.save(page, isNew);
    } catch (error) {
      if (error instanceof CustomDomainTakenError) throw validationError([DOMAIN_TAKEN]);
      throw error;
    }
    this.changed(page.id);
  }

  private changed(pageId: string): void {
    for (const listener of this.listeners) listener(pageId);
  }

  private async load(accountId: string, id: string): Promise<StatusPageEntity> {
    const page = await this.pages.findOne(accountId, id);
    if (!page) throw notFound.statusPage();
    return page;
  }

  /** The host of PUBLIC_URL, lower case, or null. */
  private ownHost(): string | null {
    if (!this.config.PUBLIC_URL) return null;
    try {
      return new URL(this.config.PUBLIC_URL).hostname.toLowerCase();
    } catch {
      return null;
    }
  }

  /** The page as the API shows it: basic auth redacted, the public address absolute when PUBLIC_URL is set. */
  private toJson(page: StatusPageEntity): StatusPageJson {
    return {
      id: page.id,
      name: page.name,
      monitors: page.monitors,
      period: page.period,
      custom_domain: page.customDomain,
      show_incident_reasons: page.showIncidentReasons,
      basic_auth: page.basicAuth === null ? null : REDACTED,
      url: `${(this.config.PUBLIC_URL ?? '').replace(/\/+$/, '')}/status/${page.id}`,
      created_at: page.createdAt,
      updated_at: page.updatedAt,
    };
  }
}
