import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';

/**
 * Targets as users write them (docs/decisions/0004-monitors.md): the pieces every target syntax
 * shares, and `http(s)://…` (monitors and contact URLs). Hosts are DNS names, IPv4 literals or
 * bracketed IPv6 literals. Each monitor type's own syntax (`tcp://<host>:<port>`,
 * `ping://<host-or-ip>`) lives in its file under monitor-types/. These parsers are shared by the
 * coordinator (validation) and the agent (probing).
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

/** A refused target, with the problem as the API reports it. */
export function targetProblem<T>(problem: string): TargetParse<T> {
  return { ok: false, problem };
}

/** A DNS name (Unicode names are checked in their ASCII form) or an IP literal. */
export function classifyHost(raw: string): TargetParse<HostPort> {
  // domainToASCII, like the WHATWG URL parser, silently deletes tab, CR and LF: refuse them
  // (and spaces, controls) here, or "exa\r\nmple.com" would pass as example.com and be
  // stored with the line break (a header injection in an email address).
  if (FORBIDDEN_RAW.test(raw)) return targetProblem('must not contain spaces, control or invisible characters');
  if (raw.startsWith('[') || raw.endsWith(']')) {
    const inner = raw.slice(1, -1);
    if (!raw.startsWith('[') || !raw.endsWith(']') || !isIPv6(inner) || inner.includes('%')) {
      return targetProblem('has an invalid IPv6 address');
    }
    return { ok: true, value: { host: inner, kind: 'ipv6' } };
  }
  if (isIPv4(raw)) return { ok: true, value: { host: raw, kind: 'ipv4' } };
  if (raw.length === 0) return targetProblem('has no host');
  const ascii = domainToASCII(raw.toLowerCase());
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  if (name === '' || name.length > 253) return targetProblem('has an invalid host name');
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (/^(\d+|0x[0-9a-f]*)$/.test(last)) return targetProblem('has an invalid IPv4 address');
  for (const label of name.split('.')) {
    if (!/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label)) return targetProblem('has an invalid host name');
  }
  return { ok: true, value: { host: raw, kind: 'name' } };
}

/**
 * The problem with a `<scheme>://…` target as typed (too long, forbidden characters, another
 * scheme), or null: the first step of every scheme's parser.
 */
export function schemeProblem(value: string, scheme: string): string | null {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters long`;
  if (FORBIDDEN_RAW.test(value)) return 'must not contain spaces, control or invisible characters';
  if (!value.toLowerCase().startsWith(`${scheme}://`)) return `must start with ${scheme}://`;
  return null;
}

/**
 * A JSON Schema `pattern` (ECMA-262 source) for a value starting `<scheme>://` in any letter case
 * (URL schemes are caseless); `optionalS` also allows one more `s` before `://` (http and https).
 */
export function schemePattern(scheme: string, optionalS = false): string {
  const caseless = [...scheme].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
  return `^${caseless}${optionalS ? '[sS]?' : ''}://`;
}

/** The host of a `<scheme>://<host>…` pattern: a bracketed IPv6 literal or a name or IPv4 literal. */
export const HOST_PART = String.raw`(\[[^\]]*\]|[^:/?#\[\]@]+)`;

/** The IP address a parsed host names literally, or null for a DNS name. */
export function hostLiteral(host: HostPort): string | null {
  return host.kind === 'name' ? null : host.host;
}

/** `http://` or `https://` absolute URL with a host, no user info. */
export function parseHttpUrl(value: string): TargetParse<URL> {
  if (value.length > MAX_URL_LENGTH) return targetProblem(`must be at most ${MAX_URL_LENGTH} characters long`);
  if (FORBIDDEN_RAW.test(value)) return targetProblem('must not contain spaces, control or invisible characters');
  if (!/^https?:\/\//i.test(value)) return targetProblem('must be an absolute http:// or https:// URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return targetProblem('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return targetProblem('must be an absolute http:// or https:// URL');
  if (url.hostname === '') return targetProblem('has no host');
  if (url.username !== '' || url.password !== '')
    return targetProblem('must not contain user information (user:password@)');
  return { ok: true, value: url };
}
