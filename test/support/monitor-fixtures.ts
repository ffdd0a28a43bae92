import { expect } from '@jest/globals';
import type { ApiClient, ApiResponse } from './api-client.js';

/** The fields of a Monitor in every response (spec: Monitor table). */
export const MONITOR_FIELDS = [
  'active',
  'check_interval',
  'contacts',
  'created_at',
  'fail_threshold',
  'id',
  'last_checked_at',
  'last_status',
  'last_status_change',
  'name',
  'notification_rules',
  'regions',
  'settings',
  'timeout',
  'updated_at',
];

/** A valid create body; `overrides` replace top-level fields (undefined removes one). */
export function monitorBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: 'Example site',
    settings: { https: { url: 'https://example.com/health' } },
    regions: ['us-east-1'],
    ...overrides,
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
}

/** Creates a monitor, insisting on 201, and returns its `data`. */
export async function createMonitor(client: ApiClient, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await client.post('/api/monitors', monitorBody(overrides));
  expect(res.status).toBe(201);
  return res.body.data;
}

/** Creates an email contact, insisting on 201, and returns its id. */
export async function createContact(client: ApiClient, name = 'On call'): Promise<string> {
  const res = await client.post('/api/contacts', { name, channel: 'email', details: { email: 'oncall@example.com' } });
  expect(res.status).toBe(201);
  return res.body.contact.id as string;
}

/** Creates a webhook contact posting to `url`, insisting on 201, and returns its id. */
export async function createWebhookContact(client: ApiClient, url: string, name = 'hook'): Promise<string> {
  const res = await client.post('/api/contacts', { name, channel: 'webhook', details: { url } });
  expect(res.status).toBe(201);
  return res.body.contact.id as string;
}

/** A 422 VALIDATION_ERROR that names `field` among its details. */
export function expectValidationError(res: ApiResponse, field: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 422, code: 'VALIDATION_ERROR' });
  expect(res.body.status).toBe('error');
  const fields = (res.body.error.details as { field: string }[]).map((d) => d.field);
  expect(fields).toContain(field);
}

/** An error envelope with exactly this status and code. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.status).toBe('error');
  expect(typeof res.body.error.message).toBe('string');
}

/** A syntactically valid object id that no test ever creates. */
export const UNKNOWN_ID = 'ffffffffffffffffffffffff';
