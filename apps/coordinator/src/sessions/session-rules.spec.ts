import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import {
  changesState,
  clearedSessionCookie,
  csrfRefusal,
  csrfTokenOf,
  needsTouch,
  newSessionToken,
  originAllowed,
  sessionCookie,
  sessionEndsAt,
  sessionState,
  sessionTokenFrom,
  tokenHash,
} from './session-rules.js';

const DAY = 86_400;
const T0 = 1_800_000_000;

describe('sessionState: 7 days idle, 30 days absolute', () => {
  it.each([
    ['just signed in', 0, 0, 'valid'],
    ['idle one second short of 7 days', 0, 7 * DAY - 1, 'valid'],
    ['idle exactly 7 days', 0, 7 * DAY, 'idle'],
    ['used on day 6, asked on day 12', 6 * DAY, 12 * DAY, 'valid'],
    ['used on day 6, asked on day 13', 6 * DAY, 13 * DAY, 'idle'],
    ['used on day 29, asked a second before day 30', 29 * DAY, 30 * DAY - 1, 'valid'],
    ['used on day 29, asked on day 30', 29 * DAY, 30 * DAY, 'expired'],
    ['used a second ago, 40 days old', 40 * DAY - 1, 40 * DAY, 'expired'],
  ] as const)('%s: %s', (_case, lastSeen, now, state) => {
    expect(sessionState({ createdAt: T0, lastSeenAt: T0 + lastSeen }, T0 + now)).toBe(state);
  });

  it.each([
    [0, 7 * DAY - 1],
    [25 * DAY, 30 * DAY - 1],
    [20 * DAY, 27 * DAY - 1],
  ])('last used on day %i/86400: usable until the second %i', (lastSeen, end) => {
    const session = { createdAt: T0, lastSeenAt: T0 + lastSeen };
    expect(sessionEndsAt(session)).toBe(T0 + end);
    expect(sessionState(session, sessionEndsAt(session))).toBe('valid');
    expect(sessionState(session, sessionEndsAt(session) + 1)).not.toBe('valid');
  });

  it.each([
    [0, false],
    [59, false],
    [60, true],
    [3600, true],
  ])('a use %i s after the last recorded one is written: %s', (after, written) => {
    expect(needsTouch({ createdAt: T0, lastSeenAt: T0 }, T0 + after)).toBe(written);
  });
});

describe('session tokens and cookies', () => {
  it('are 256 random bits, stored as SHA-256, with a CSRF token derived from them', () => {
    const tokens = Array.from({ length: 50 }, newSessionToken);
    expect(new Set(tokens).size).toBe(50);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const token = tokens[0]!;
    expect(tokenHash(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(csrfTokenOf(token)).not.toBe(tokenHash(token));
    expect(csrfTokenOf(token)).not.toContain(token);
    expect(csrfTokenOf(token)).toBe(csrfTokenOf(token));
    expect(csrfTokenOf(token)).not.toBe(csrfTokenOf(tokens[1]!));
  });

  it.each([
    [undefined, undefined],
    ['', undefined],
    [`picket_session=${'a'.repeat(43)}`, 'a'.repeat(43)],
    [`theme=dark; picket_session=${'b'.repeat(43)}; other=1`, 'b'.repeat(43)],
    [`picket_session_old=${'c'.repeat(43)}`, undefined],
    ['picket_session=short', undefined],
    [`picket_session=${'d'.repeat(42)}!`, undefined],
  ])('Cookie %p gives the session token %p', (header, token) => {
    expect(sessionTokenFrom(header)).toBe(token);
  });

  it('set HttpOnly, SameSite=Lax, Path=/, and Secure only when asked', () => {
    expect(sessionCookie('tok', false)).toBe('picket_session=tok; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax');
    expect(sessionCookie('tok', true)).toBe(
      'picket_session=tok; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure',
    );
    expect(clearedSessionCookie(true)).toBe('picket_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
  });
});

describe('the CSRF decision', () => {
  const own = ['http://127.0.0.1:8080', 'https://picket.example.com'];
  const expected = csrfTokenOf(newSessionToken());

  it.each([
    ['a read without anything', 'GET', undefined, undefined, null],
    ['a read from another origin', 'GET', undefined, 'https://evil.example', null],
    ['a write with the token and no Origin', 'POST', expected, undefined, null],
    ['a write with the token and its own Origin', 'PUT', expected, 'http://127.0.0.1:8080', null],
    ['a write with the token and PUBLIC_URL as Origin', 'DELETE', expected, 'https://picket.example.com', null],
    [
      'a write with the token, Origin in upper case, default port',
      'PATCH',
      expected,
      'HTTPS://Picket.Example.com:443',
      null,
    ],
    ['a write without the token', 'POST', undefined, undefined, /X-CSRF-Token header/],
    ['a write with an empty token', 'POST', '', 'http://127.0.0.1:8080', /X-CSRF-Token header/],
    ['a write with another token', 'DELETE', `${expected.slice(1)}x`, undefined, /does not match/],
    ['a write with the token from another origin', 'POST', expected, 'https://evil.example', /Origin/],
    ['a write with the token from another port', 'POST', expected, 'http://127.0.0.1:9090', /Origin/],
    ['a write with the token and Origin: null', 'POST', expected, 'null', /Origin/],
    ['a write from another scheme', 'POST', expected, 'https://127.0.0.1:8080', /Origin/],
  ] as const)('%s', (_case, method, header, origin, refusal) => {
    const answer = csrfRefusal({ method, header, expected, origin, ownOrigins: own });
    if (refusal === null) expect(answer).toBeNull();
    else expect(answer).toMatch(refusal);
  });

  it.each([
    ['GET', false],
    ['HEAD', false],
    ['OPTIONS', false],
    ['POST', true],
    ['put', true],
    ['PATCH', true],
    ['DELETE', true],
  ])('%s changes state: %s', (method, changes) => {
    expect(changesState(method)).toBe(changes);
  });

  it.each([
    [undefined, true],
    ['http://127.0.0.1:8080', true],
    ['http://127.0.0.1:8080/', true],
    ['http://localhost:8080', false],
    ['null', false],
    ['garbage', false],
    ['file://', false],
  ])('Origin %p may sign in: %s', (origin, allowed) => {
    expect(originAllowed(origin, own)).toBe(allowed);
  });
});
