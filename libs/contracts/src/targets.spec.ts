import { describe, expect, it } from '@jest/globals';
import { parsePingUrl } from './monitor-types/ping.js';
import { parseTcpUrl } from './monitor-types/tcp.js';
import { classifyHost, parseHttpUrl } from './targets.js';

describe('parseHttpUrl', () => {
  it.each([
    ['https://example.com', true],
    ['http://example.com:8080/health?x=1#f', true],
    ['HTTPS://EXAMPLE.COM/', true],
    ['https://[2001:db8::1]/', true],
    ['https://192.0.2.10/', true],
    ['https://bücher.example/', true],
    ['ftp://example.com', false],
    ['example.com', false],
    ['//example.com', false],
    ['https://user:pass@example.com/', false],
    ['https://user@example.com/', false],
    ['https://exa\nmple.com/', false],
    ['https://exa mple.com/', false],
    ['https://example.com/\t', false],
    ['https://exa\u00admple.com/', false],
    ['https://exa\u200bmple.com/', false],
    ['https://example.com/\u202e', false],
    ['https://example.com/\u0085', false],
    ['https://', false],
    ['https://[::1/', false],
    [`https://example.com/${'a'.repeat(2048)}`, false],
  ])('%j → ok=%s', (input, ok) => {
    expect(parseHttpUrl(input).ok).toBe(ok);
  });
});

describe('parseTcpUrl', () => {
  it.each([
    ['tcp://example.com:443', { host: 'example.com', kind: 'name', port: 443 }],
    ['tcp://192.0.2.1:1', { host: '192.0.2.1', kind: 'ipv4', port: 1 }],
    ['tcp://[2001:db8::1]:65535', { host: '2001:db8::1', kind: 'ipv6', port: 65535 }],
    ['TCP://db.internal:5432', { host: 'db.internal', kind: 'name', port: 5432 }],
  ])('%j parses', (input, expected) => {
    expect(parseTcpUrl(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    'tcp://example.com',
    'tcp://example.com:0',
    'tcp://example.com:65536',
    'tcp://example.com:80/path',
    'tcp://example.com:80?x',
    'tcp://user@example.com:80',
    'tcp://:80',
    'tcp://[::1:80',
    'tcp://[not-ip]:80',
    'tcp://256.1.1.1:80',
    'tcp://2130706433:80',
    'tcp://0x7f.1:80',
    'tcp://-bad.example:80',
    'http://example.com:80',
    'tcp://exa mple.com:80',
  ])('%j is refused', (input) => {
    expect(parseTcpUrl(input).ok).toBe(false);
  });
});

describe('parsePingUrl', () => {
  it.each([
    ['ping://example.com', 'name'],
    ['ping://8.8.8.8', 'ipv4'],
    ['ping://[::1]', 'ipv6'],
    ['ping://example.com.', 'name'],
  ])('%j is a %s target', (input, kind) => {
    const result = parsePingUrl(input);
    expect(result.ok && result.value.kind).toBe(kind);
  });

  it.each([
    'ping://',
    'ping://example.com:80',
    'ping://example.com/x',
    'ping://::1',
    'tcp://example.com',
    'ping://a..b',
  ])('%j is refused', (input) => {
    expect(parsePingUrl(input).ok).toBe(false);
  });
});

describe('classifyHost', () => {
  it('accepts labels of 63 characters and refuses 64', () => {
    expect(classifyHost(`${'a'.repeat(63)}.example`).ok).toBe(true);
    expect(classifyHost(`${'a'.repeat(64)}.example`).ok).toBe(false);
  });

  it('refuses IPv6 zone ids', () => {
    expect(classifyHost('[fe80::1%eth0]').ok).toBe(false);
  });
});
