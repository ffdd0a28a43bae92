import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';

/**
 * Monitor targets as users write them (docs/decisions/0004-monitors.md): `http(s)://…`,
 * `tcp://<host>:<port>` and `ping://<host-or-ip>`. Hosts are DNS names, IPv4 literals or bracketed
 * IPv6 literals. These parsers are shared by the coordinator (validation) and the agent (probing).
 */

export const MAX_URL_LENGTH = 2048;

export interface HostPort {
  /** Host as written, without IPv6 brackets. */
  host: string;
  kind: 'ipv4' | 'ipv6' | 'name';
  port?: number;
}

export type TargetParse<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Characters no target may contain as typed: white space, C0/C1 controls, bidirectional
 * controls, and invisible characters that IDNA processing silently deletes (soft hyphen,
 * zero-width space/joiners, word joiner, BOM), so what is stored is what is dialled.
 */
// eslint-disable-next-line no-control-regex
const FORBIDDEN_RAW = /[\s\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

/** Whether text holds a character that no URL, host or address may contain (see FORBIDDEN_RAW). */
export function hasUnsafeCharacters(text: string): boolean {
  return FORBIDDEN_RAW.test(text);
}

function fail<T>(problem: string): TargetParse<T> {
  return { ok: false, problem };
}

/** A DNS name (Unicode names are checked in their ASCII form) or an IP literal. */
export function classifyHost(raw: string): TargetParse<HostPort> {
  // domainToASCII, like the WHATWG URL parser, silently deletes tab, CR and LF: refuse them
  // (and spaces, controls) here, or "exa\r\nmple.com" would pass as example.com and be
  // stored with the line break (a header injection in an email address).
  if (FORBIDDEN_RAW.test(raw)) return fail('must not contain spaces, control or invisible characters');
  if (raw.startsWith('[') || raw.endsWith(']')) {
    const inner = raw.slice(1, -1);
    if (!raw.startsWith('[') || !raw.endsWith(']') || !isIPv6(inner) || inner.includes('%')) {
      return fail('has an invalid IPv6 address');
    }
    return { ok: true, value: { host: inner, kind: 'ipv6' } };
  }
  if (isIPv4(raw)) return { ok: true, value: { host: raw, kind: 'ipv4' } };
  if (raw.length === 0) return fail('has no host');
  const ascii = domainToASCII(raw.toLowerCase());
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  if (name === '' || name.length > 253) return fail('has an invalid host name');
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (/^(\d+|0x[0-9a-f]*)$/.test(last)) return fail('has an invalid IPv4 address');
  for (const label of name.split('.')) {
    if (!/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label)) return fail('has an invalid host name');
  }
  return { ok: true, value: { host: raw, kind: 'name' } };
}

function checkRaw(value: string, scheme: string): string | null {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters long`;
  if (FORBIDDEN_RAW.test(value)) return 'must not contain spaces, control or invisible characters';
  if (!value.toLowerCase().startsWith(`${scheme}://`)) return `must start with ${scheme}://`;
  return null;
}

/** `http://` or `https://` absolute URL with a host, no user info. */
export function parseHttpUrl(value: string): TargetParse<URL> {
  if (value.length > MAX_URL_LENGTH) return fail(`must be at most ${MAX_URL_LENGTH} characters long`);
  if (FORBIDDEN_RAW.test(value)) return fail('must not contain spaces, control or invisible characters');
  if (!/^https?:\/\//i.test(value)) return fail('must be an absolute http:// or https:// URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must be an absolute http:// or https:// URL');
  if (url.hostname === '') return fail('has no host');
  if (url.username !== '' || url.password !== '') return fail('must not contain user information (user:password@)');
  return { ok: true, value: url };
}

const HOST_PART = String.raw`(\[[^\]]*\]|[^:/?#\[\]@]+)`;
const TCP_PATTERN = new RegExp(String.raw`^tcp://${HOST_PART}:(\d{1,5})$`, 'i');
const PING_PATTERN = new RegExp(String.raw`^ping://${HOST_PART}$`, 'i');

/** `tcp://<host>:<port>`, port 1..65535, nothing else. */
export function parseTcpUrl(value: string): TargetParse<HostPort> {
  const raw = checkRaw(value, 'tcp');
  if (raw) return fail(raw);
  const match = TCP_PATTERN.exec(value);
  if (!match) return fail('must have the form tcp://<host>:<port>');
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return fail('must have a port between 1 and 65535');
  const host = classifyHost(match[1] ?? '');
  return host.ok ? { ok: true, value: { ...host.value, port } } : host;
}

/** `ping://<host-or-ip>`, nothing else. */
export function parsePingUrl(value: string): TargetParse<HostPort> {
  const raw = checkRaw(value, 'ping');
  if (raw) return fail(raw);
  const match = PING_PATTERN.exec(value);
  if (!match) return fail('must have the form ping://<host-or-ip>');
  return classifyHost(match[1] ?? '');
}

/**
 * The IP address a target URL names literally (`https://10.0.0.1/`, `tcp://[::1]:22`,
 * `ping://169.254.169.254`), or null for a host name or an unparsable URL. The egress policy
 * judges literals when a monitor or contact is saved; names only at connect time.
 */
export function literalAddressOf(url: string): string | null {
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (scheme === 'tcp' || scheme === 'ping') {
    const parsed = scheme === 'tcp' ? parseTcpUrl(url) : parsePingUrl(url);
    return parsed.ok && parsed.value.kind !== 'name' ? parsed.value.host : null;
  }
  const parsed = parseHttpUrl(url);
  if (!parsed.ok) return null;
  const host = parsed.value.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIPv4(host) || host.includes(':') ? host : null;
}
