import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { AccountsRepository } from '../auth/accounts.repository.js';
import { AccountsService } from '../auth/accounts.service.js';
import type { ApiKeyEntity } from '../auth/api-key.entity.js';
import { isPermission, PERMISSIONS, type Permission } from '../auth/permissions.js';
import { pageOffset, pageRequest, paginationOf, type Pagination } from '../common/pagination.js';
import { notFound } from '../errors.js';
import { DEFAULT_KEYS_PER_PAGE, type CreateKeyDto, type ListKeysQuery } from './users.dto.js';

/** A key as the dashboard sees it: never the key, which is not stored (only its SHA-256 is). */
export interface ApiKeyJson {
  id: string;
  name: string;
  permissions: Permission[];
  created_at: number;
  last_used_at: number | null;
  prefix: string;
}

export function toApiKeyJson(key: ApiKeyEntity): ApiKeyJson {
  return {
    id: key.id,
    name: key.name,
    permissions: key.permissions.split(',').filter(isPermission),
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    prefix: key.prefix,
  };
}

/** The account's API keys as an admin manages them from the dashboard (docs/decisions/0022-users-and-sessions.md). */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly service: AccountsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(accountId: string, query: ListKeysQuery): Promise<{ keys: ApiKeyJson[]; pagination: Pagination }> {
    const request = pageRequest(query, DEFAULT_KEYS_PER_PAGE);
    const total = (await this.accounts.pageKeys(accountId, null, 0, 'ASC'))[1];
    const order = query.order === 'asc' ? 'ASC' : 'DESC';
    const [rows] = await this.accounts.pageKeys(accountId, pageOffset(request, total), request.perPage, order);
    return { keys: rows.map(toApiKeyJson), pagination: paginationOf(request, total) };
  }

  /** A new key; the whole key is in this answer only. */
  async create(accountId: string, dto: CreateKeyDto): Promise<ApiKeyJson & { key: string }> {
    const permissions = PERMISSIONS.filter((p) => (dto.permissions ?? PERMISSIONS).includes(p));
    const { keyId, apiKey } = await this.service.createKey(accountId, permissions, dto.name);
    const key = await this.accounts.findKey(keyId);
    if (!key) throw new Error(`key ${keyId} vanished after its insert`);
    return { ...toApiKeyJson(key), key: apiKey };
  }

  /** Revokes the key at once (there is no key cache): 404 when the account has no such key in use. */
  async revoke(accountId: string, id: string): Promise<void> {
    if (!(await this.accounts.revokeKeyOf(accountId, id, unixSeconds(this.clock)))) throw notFound.apiKey();
  }
}
