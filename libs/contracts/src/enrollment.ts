import { described, Field, objectIdString, text } from '#validation';

/**
 * The wire of agent enrollment (docs/decisions/0030-private-regions.md): an agent started with
 * AGENT_ENROLL_TOKEN connects to NATS with the token (a bearer user JWT allowed nothing but this
 * request and its reply), sends an EnrollRequest on `<prefix>.agents.enroll`, and gets a user JWT
 * for the public key it sent. Its seed never leaves the agent; the reply holds nothing secret.
 */

/** A NATS user's public key: `U` and 55 base32 characters. */
export const NATS_USER_KEY_PATTERN = /^U[A-Z2-7]{55}$/;

/** The enrollment token's shape: a JWT (three base64url parts). */
export const ENROLL_TOKEN_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Longer than any token a coordinator issues. */
export const ENROLL_TOKEN_MAX_LENGTH = 4096;

const matching = (pattern: RegExp, max: number, what: string) =>
  described(
    (value) =>
      typeof value !== 'string' ? 'must be a string' : value.length <= max && pattern.test(value) ? null : what,
    { type: 'string', maxLength: max, pattern: pattern.source },
  );

export class EnrollRequestDto {
  @Field(matching(ENROLL_TOKEN_PATTERN, ENROLL_TOKEN_MAX_LENGTH, 'must be an enrollment token')) token!: string;
  @Field(matching(NATS_USER_KEY_PATTERN, 56, 'must be a NATS user public key')) public_key!: string;
  /** The agent's AGENT_ID: names it in the region's agent list. */
  @Field(text({ max: 64, min: 1 })) agent_id!: string;
  /** The agent's AGENT_PRIVATE_REGION: a token of another region is refused, and stays unused. */
  @Field(objectIdString) account_id!: string;
  @Field(text({ max: 32, min: 1 })) region!: string;
}

export type EnrollReply =
  { ok: true; jwt: string; agent: string; account_id: string; region: string } | { ok: false; error: string };

/**
 * The inbox prefix of a connection made with an enrollment token: the token's user may subscribe
 * under it alone, so no holder of a token reads another agent's reply.
 */
export const enrollInboxPrefix = (tokenUserKey: string): string => `_INBOX_ENROLL.${tokenUserKey}`;

/** The user public key (`sub`) of an enrollment token, read without verifying it (NATS does that); null if unreadable. */
export function enrollTokenUser(token: string): string | null {
  const payload = token.split('.')[1];
  if (!ENROLL_TOKEN_PATTERN.test(token) || payload === undefined) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof claims.sub === 'string' && NATS_USER_KEY_PATTERN.test(claims.sub) ? claims.sub : null;
  } catch {
    return null;
  }
}
