import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, newObjectId, type Clock } from '#runtime';
import { checkInput, isPlainObject } from '#validation';
import type { CreateGate } from '../auth/account-gate.js';
import { paginationOf, pageRequest, type Pagination } from '../common/pagination.js';
import { contactEgressProblems } from '../common/egress-check.js';
import { CoordinatorConfig } from '../config.js';
import { AppError, notFound, validationError, type FieldProblem } from '../errors.js';
import { CHANNEL_TABLE, completeDetails, isChannel, REDACTED, type Channel } from './channels.js';
import { ContactEntity } from './contact.entity.js';
import { CreateContactDto, ListContactsQuery, UpdateContactDto } from './contact.dto.js';
import { toContactJson, toContactStateJson, type ContactJson } from './contact.mapper.js';
import { ContactsRepository } from './contacts.repository.js';

export const DEFAULT_CONTACTS_PER_PAGE = 50;

/** Validates a channel's whole details object; returns the stored form or the problems. */
function checkDetails(
  channel: Channel,
  details: unknown,
): { details?: Record<string, unknown>; problems: FieldProblem[] } {
  const { value, problems } = checkInput(CHANNEL_TABLE[channel].details, details, 'details');
  if (!value) return { problems };
  return { details: completeDetails(channel, { ...value }), problems: [] };
}

@Injectable()
export class ContactsService {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(
    accountId: string,
    query: ListContactsQuery,
  ): Promise<{ contacts: ContactJson[]; pagination: Pagination }> {
    const page = pageRequest(query, DEFAULT_CONTACTS_PER_PAGE);
    const { total, contacts } = await this.contacts.list({
      accountId,
      search: query.search,
      channel: query.channel,
      sort: query.sort ?? 'created_at',
      order: query.order ?? 'desc',
      page,
    });
    return { contacts: contacts.map(toContactJson), pagination: paginationOf(page, total) };
  }

  async get(accountId: string, id: string): Promise<ContactJson> {
    return toContactJson(await this.load(accountId, id));
  }

  async create(accountId: string, body: unknown): Promise<ContactJson> {
    const top = checkInput(CreateContactDto, body === undefined ? {} : body);
    const problems = [...top.problems];
    const raw = isPlainObject(body) ? body : {};
    let details: Record<string, unknown> | undefined;
    const refusal = isChannel(raw.channel) ? CHANNEL_TABLE[raw.channel].createRefusal : undefined;
    if (refusal !== undefined) {
      problems.push({ field: 'channel', message: refusal });
    } else if (isChannel(raw.channel) && isPlainObject(raw.details)) {
      const checked = checkDetails(raw.channel, raw.details);
      problems.push(...checked.problems);
      details = checked.details;
      if (details) problems.push(...contactEgressProblems(details, this.config.egress()));
    }
    const dto = top.value;
    if (problems.length > 0 || !dto || !details) throw validationError(problems);
    // Past MAX_CONTACTS_PER_ACCOUNT: 403 QUOTA_EXCEEDED (docs/decisions/0018-abuse-limits-and-quotas.md).
    const gate = { limit: this.config.MAX_CONTACTS_PER_ACCOUNT };
    return toContactJson(await this.insert(accountId, dto.name, dto.channel, details, dto, gate));
  }

  /**
   * Stores a contact of any channel (the API refuses read-only ones before calling this). The
   * API passes the quota as `gate`; the operator's CLI (`push register`) does not.
   */
  async insert(
    accountId: string,
    name: string,
    channel: Channel,
    details: Record<string, unknown>,
    flags: { active?: boolean; down_alerts_only?: boolean } = {},
    gate?: CreateGate,
  ): Promise<ContactEntity> {
    const now = this.clock.now();
    const seconds = Math.floor(now / 1000);
    const contact = Object.assign(new ContactEntity(), {
      id: newObjectId(now),
      accountId,
      name,
      channel,
      details,
      active: flags.active ?? true,
      downAlertsOnly: flags.down_alerts_only ?? false,
      error: null,
      consecutiveFailures: 0,
      createdAt: seconds,
      updatedAt: seconds,
    });
    if (gate) await this.contacts.insertGated(contact, gate);
    else await this.contacts.save(contact);
    return contact;
  }

  /**
   * PUT: 404, then 403 for read-only channels, then the body. `details` merges field by
   * field over the stored details ([REDACTED] keeps a stored secret) and the merged result
   * is validated whole.
   */
  async update(accountId: string, id: string, body: unknown): Promise<ContactJson> {
    const contact = await this.loadWritable(accountId, id);
    const top = checkInput(UpdateContactDto, body === undefined ? {} : body);
    const problems = [...top.problems];
    const dto = top.value;
    if (dto?.channel !== undefined && dto.channel !== contact.channel) {
      problems.push({ field: 'channel', message: 'cannot be changed; create a new contact instead' });
    }
    let details = contact.details;
    if (dto?.details !== undefined) {
      const checked = checkDetails(contact.channel, this.mergeDetails(contact, dto.details));
      problems.push(...checked.problems);
      if (checked.details) {
        details = checked.details;
        problems.push(...contactEgressProblems(details, this.config.egress()));
      }
    }
    if (problems.length > 0 || !dto) throw validationError(problems);

    if (dto.name !== undefined) contact.name = dto.name;
    if (dto.active !== undefined) contact.active = dto.active;
    if (dto.down_alerts_only !== undefined) contact.downAlertsOnly = dto.down_alerts_only;
    contact.details = details;
    contact.updatedAt = Math.floor(this.clock.now() / 1000);
    await this.contacts.save(contact);
    return toContactJson(contact);
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.loadWritable(accountId, id);
    if (!(await this.contacts.delete(accountId, id))) throw notFound.contact();
  }

  /** Turns an automatically deactivated contact back on and forgets its failures. */
  async reactivate(accountId: string, id: string) {
    const contact = await this.load(accountId, id);
    contact.active = true;
    contact.error = null;
    contact.consecutiveFailures = 0;
    contact.updatedAt = Math.floor(this.clock.now() / 1000);
    await this.contacts.save(contact);
    return toContactStateJson(contact);
  }

  private mergeDetails(contact: ContactEntity, given: Record<string, unknown>): Record<string, unknown> {
    const { secrets } = CHANNEL_TABLE[contact.channel];
    const merged: Record<string, unknown> = { ...contact.details };
    for (const [key, value] of Object.entries(given)) {
      const stored = merged[key];
      if (value === REDACTED && secrets.includes(key) && stored !== undefined && stored !== null) continue;
      merged[key] = isPlainObject(value) && isPlainObject(stored) ? { ...stored, ...value } : value;
    }
    return merged;
  }

  private async load(accountId: string, id: string): Promise<ContactEntity> {
    const contact = await this.contacts.findOne(accountId, id);
    if (!contact) throw notFound.contact();
    return contact;
  }

  private async loadWritable(accountId: string, id: string): Promise<ContactEntity> {
    const contact = await this.load(accountId, id);
    if (CHANNEL_TABLE[contact.channel].readOnly) {
      throw new AppError(
        'READONLY_CHANNEL',
        `Contacts of the ${contact.channel} channel are read-only through the API.`,
      );
    }
    return contact;
  }
}
