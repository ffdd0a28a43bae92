/**
 * The rules of dashboard sessions, pure (docs/decisions/0022-users-and-sessions.md): when a
 * session has expired, when its last use is written, the cookie, and the CSRF decision.
 */
import { createHash, randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'picket_session';
/** A session unused this long is over. */
export const SESSION_IDLE_SECONDS = 7 * 86_400;
/** A session is over this long after sign-in, used or not. */
export const SESSION_ABSOLUTE_SECONDS = 30 * 86_400;
/** `last_seen_at` is written at most this often per session, never on every request. */
export const SESSION_TOUCH_SECONDS = 60;
/** The header a session's state-changing request carries its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

export interface SessionTimes {
  /** Unix seconds of sign-in. */
  createdAt: number;
  /** Unix seconds of the last recorded use. */
  lastSeenAt: number;
}

export type SessionState = 'valid' | 'idle' | 'expired';

/** Whether a session is usable at `now`: `idle` past 7 days unused, `expired` past 30 days since sign-in. */
export function sessionState(session: SessionTimes, now: number): SessionState {
  if (now >= session.createdAt + SESSION_ABSOLUTE_SECONDS) return 'expired';
  if (now >= session.lastSeenAt + SESSION_IDLE_SECONDS) return 'idle';
  return 'valid';
}

/** Whether a use at `now` should be written (at most once a minute). */
export function needsTouch(session: SessionTimes, now: number): boolean {
  return now - session.lastSeenAt >= SESSION_TOUCH_SECONDS;
}

/** The last second the session can be used if not used again. */
export function sessionEndsAt(session: SessionTimes): number {
  return Math.min(session.lastSeenAt + SESSION_IDLE_SECONDS, session.createdAt + SESSION_ABSOLUTE_SECONDS) - 1;
}

/** A new session token: 256 random bits, base64url. Only its SHA-256 is stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a session token (or a one-time token): lowercase hex SHA-256. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The session's CSRF token, derived from the session token (not stored): whoever holds the
 * cookie can compute it, nobody can go back from it to the cookie, and a stolen database
 * (which holds only the SHA-256 of the session token) does not yield it.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`picket-csrf\u0000${sessionToken}`, 'utf8').digest('base64url');
}

/** The session token from a Cookie header, or undefined. */
export function sessionTokenFrom(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  }
  return undefined;
}

/** The Set-Cookie value of a new session (lasting its absolute lifetime; the server judges idleness). */
export function sessionCookie(token: string, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    `Max-Age=${SESSION_ABSOLUTE_SECONDS}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, 'Path=/', 'Max-Age=0', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join(
    '; ',
  );
}

/** Methods that change state: a session's request with one of them must pass the CSRF check. */
export function changesState(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

/**
 * `scheme://host[:port]` of an origin or URL, lower-cased, default ports dropped; null when it
 * is not an http(s) origin (`null`, garbage).
 */
export function normalOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Whether an `Origin` header may send this request: absent (same-origin GETs and non-browser
 * clients send none), or equal to one of `own` (the request's own origin, and PUBLIC_URL's
 * behind a proxy). `Origin: null` (sandboxed frames, some redirects) is foreign.
 */
export function originAllowed(origin: string | undefined, own: readonly string[]): boolean {
  if (origin === undefined) return true;
  const normal = normalOrigin(origin);
  return normal !== null && own.includes(normal);
}

export interface CsrfInput {
  method: string;
  /** The X-CSRF-Token header, if any. */
  header: string | undefined;
  /** The session's CSRF token. */
  expected: string;
  origin: string | undefined;
  ownOrigins: readonly string[];
}

/**
 * The CSRF decision for a request authenticated by a session cookie: null to go on, or the
 * reason to refuse (403). Reads are never refused; writes need the session's token in
 * X-CSRF-Token and, when an Origin is sent, one of the server's own origins.
 */
export function csrfRefusal(input: CsrfInput): string | null {
  if (!changesState(input.method)) return null;
  if (!originAllowed(input.origin, input.ownOrigins)) {
    return 'Cross-site request refused: the Origin header is not this server.';
  }
  if (input.header === undefined || input.header === '') {
    return 'A signed-in request that changes something needs the X-CSRF-Token header (csrf_token of GET /api/me).';
  }
  if (!sameText(input.header, input.expected)) {
    return 'The X-CSRF-Token header does not match this session (csrf_token of GET /api/me).';
  }
  return null;
}

/** Equality that takes the same time wherever the texts differ. */
function sameText(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return left.equals(right) && a.length === b.length;
}
