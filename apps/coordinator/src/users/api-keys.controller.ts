import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, RequireSession } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ApiKeyIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { ApiKeysService } from './api-keys.service.js';
import { CreateKeyDto, DEFAULT_KEYS_PER_PAGE, ListKeysQuery } from './users.dto.js';

/** The account's API keys, managed by its admins from the dashboard; a key can never manage keys (403). */
@Controller('api/keys')
@RequireSession('admin')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @ApiOperation({
    operationId: 'listApiKeys',
    tag: 'API keys',
    summary: 'List API keys',
    description: 'Keys in use (revoked ones are gone), newest first unless order=asc. Never the keys themselves.',
    query: pageQuery(DEFAULT_KEYS_PER_PAGE, 'By created_at: `desc` is newest first.'),
    success: { description: 'A page of keys.', schema: 'ApiKeyListResponse' },
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListKeysQuery) {
    return { status: 'ok', data: await this.keys.list(principal.accountId, query) };
  }

  @Post()
  @ApiOperation({
    operationId: 'createApiKey',
    tag: 'API keys',
    summary: 'Create an API key',
    description: 'The whole key is in this answer only (only its SHA-256 is stored). Without `permissions`: all nine.',
    body: { schema: 'ApiKeyCreate', required: true, description: 'The new key.' },
    success: { description: 'The key, shown once.', schema: 'ApiKeyCreatedResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateKeyDto) {
    return { status: 'ok', data: await this.keys.create(principal.accountId, body) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteApiKey',
    tag: 'API keys',
    summary: 'Revoke an API key',
    description: 'Refused at once from then on (there is no key cache).',
    id: 'ApiKeyId',
    success: { description: 'Revoked.' },
    errors: ['NOT_FOUND'],
  })
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ApiKeyIdPipe) id: string): Promise<void> {
    await this.keys.revoke(principal.accountId, id);
  }
}
