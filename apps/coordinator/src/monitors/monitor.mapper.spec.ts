import { describe, expect, it } from '@jest/globals';
import { monitorJsonText, toMonitorJson } from './monitor.mapper.js';
import { monitorFromRow, type ListedMonitorRow } from './monitors.repository.js';

const NOW = 1_767_225_600;
const BASE = 'https://picket.example.com';

/** A listed row as SQLite's driver gives it: 0/1 booleans, numbers, JSON columns as text. */
function sqliteRow(overrides: Partial<ListedMonitorRow> = {}): ListedMonitorRow {
  return {
    id: '65a1b2c3d4e5f60718293a4b',
    account_id: '65a1b2c3d4e5f60718293a00',
    name: 'Shop',
    active: 1,
    check_interval: 60,
    timeout: 10,
    fail_threshold: 2,
    regions: '["eu-west-1","us-east-1"]',
    monitor_type: 'https',
    settings: '{"url":"https://shop.example.com/health","method":"GET","expected_status":[200,204]}',
    heartbeat_token: null,
    last_status: 'up',
    last_status_change: NOW - 3600,
    last_checked_at: NOW - 30,
    notification_rules: null,
    created_at: NOW - 86_400,
    updated_at: NOW - 7200,
    contact_ids: null,
    ...overrides,
  };
}

/** The same as PostgreSQL's driver gives it: booleans, BIGINT columns as strings. */
function postgresRow(overrides: Partial<ListedMonitorRow> = {}): ListedMonitorRow {
  const row = sqliteRow(overrides);
  const text = (value: number | string | null) => (value === null ? null : String(value));
  return {
    ...row,
    active: Boolean(row.active),
    last_status_change: String(row.last_status_change),
    last_checked_at: text(row.last_checked_at),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    total: '3',
  };
}

const CASES: [string, Partial<ListedMonitorRow>][] = [
  ['an https monitor, up, no contacts, default rules', {}],
  ['paused, with one contact', { active: 0, contact_ids: '65a1b2c3d4e5f60718293a01' }],
  [
    'three contacts in their order',
    { contact_ids: '65a1b2c3d4e5f60718293a03,65a1b2c3d4e5f60718293a01,65a1b2c3d4e5f60718293a02' },
  ],
  ['a name that needs escaping', { name: 'Say "hi" \\ back\nslash\u2028line\u0001 ✓ 🚀 <b>' }],
  ['never checked, pending', { last_status: 'pending', last_checked_at: null, created_at: NOW - 60 }],
  ['never checked for too long: unknown', { last_status: 'pending', last_checked_at: null, created_at: NOW - 600 }],
  ['down, last checked long ago: unknown', { last_status: 'down', last_checked_at: NOW - 181 }],
  ['down, checked just now', { last_status: 'down', last_checked_at: NOW - 1 }],
  ['some rules stored, the rest default', { notification_rules: '{"delay_seconds":120}' }],
  [
    'every rule stored, with escalation steps',
    {
      notification_rules:
        '{"delay_seconds":60,"repeat_interval_seconds":1800,"escalation":[{"after_seconds":900,"contacts":["65a1b2c3d4e5f60718293a09"]}]}',
    },
  ],
  ['a tcp monitor', { monitor_type: 'tcp', settings: '{"url":"tcp://db.example.com:5432"}', regions: '["eu-west-1"]' }],
  ['a ping monitor', { monitor_type: 'ping', settings: '{"url":"ping://203.0.113.7"}' }],
  ['a dns monitor', { monitor_type: 'dns', settings: '{"url":"dns://example.com","record_type":"MX"}' }],
  [
    'an https monitor with nested settings',
    {
      monitor_type: 'https',
      settings:
        '{"url":"http://a.example.com/","headers":{"x-token":"a\\"b"},"body":"{\\"k\\":[1,2]}","assertions":[{"json_path":"$.ok","equals":true}]}',
    },
  ],
  [
    'a heartbeat: settings with its ping URL, never unknown',
    {
      monitor_type: 'heartbeat',
      settings: '{"period":86400,"grace":3600}',
      heartbeat_token: 'hb_0123456789abcdef',
      regions: '[]',
      last_status: 'up',
      last_checked_at: NOW - 10 * 86_400,
    },
  ],
];

describe('monitorJsonText', () => {
  it.each(
    CASES.flatMap(([name, row]) => [
      [`${name} (SQLite)`, sqliteRow(row)] as const,
      [`${name} (PostgreSQL)`, postgresRow(row)] as const,
    ]),
  )('%s: what toMonitorJson answers for the same row', (_name, row) => {
    const contactIds = row.contact_ids === null ? [] : row.contact_ids.split(',');
    const expected = toMonitorJson({ monitor: monitorFromRow(row), contactIds }, NOW, BASE);
    const text = monitorJsonText(row, NOW, BASE);
    expect(JSON.parse(text)).toEqual(expected);
    // The same fields in the same order as the object the other answers serialise.
    expect(text).toBe(JSON.stringify(expected));
  });
});
