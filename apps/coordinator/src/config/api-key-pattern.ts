/**
 * `pkt_` + 64 lowercase hex characters: 256 random bits (docs/decisions/0003-auth-permissions-rate-limit.md).
 * Here because BOOTSTRAP_API_KEY is validated with it; auth/api-key.ts makes and checks keys of this form.
 */
export const API_KEY_PATTERN = /^pkt_[0-9a-f]{64}$/;

/** How an operator makes a key, as the configuration's messages say it. */
export const GENERATE_API_KEY = 'echo pkt_$(openssl rand -hex 32)';

/** Fewer distinct hex digits than this in 64 is a made-up key: a random one has about 15.7, and fewer than 8 has odds under 10^-15. */
const MIN_DISTINCT_DIGITS = 8;
/** A block of at most this many characters repeated to fill the key is a made-up key (odds 16^-48 for a random one). */
const MAX_REPEATED_BLOCK = 16;

/**
 * Why a well-formed key cannot have come from a random source, or null
 * (docs/decisions/0018-abuse-limits-and-quotas.md): too few distinct hex digits (all zeros, one
 * repeated character, `deadbeef…`) or one short block repeated (`0123456789abcdef` four times).
 * Not an entropy estimate: it catches placeholders and hand-typed keys, and never a generated one.
 */
export function weakApiKeyProblem(key: string): string | null {
  const hex = key.startsWith('pkt_') ? key.slice(4) : key;
  if (new Set(hex).size < MIN_DISTINCT_DIGITS) {
    return `uses fewer than ${MIN_DISTINCT_DIGITS} distinct hex digits, so it is a placeholder, not a secret`;
  }
  for (let block = 1; block <= MAX_REPEATED_BLOCK; block++) {
    if (hex.slice(block) === hex.slice(0, hex.length - block)) {
      return `repeats a block of ${block} characters, so it is a placeholder, not a secret`;
    }
  }
  return null;
}

/** What is wrong with a BOOTSTRAP_API_KEY value, or null; every message says how to make a good one. */
export function bootstrapKeyProblem(value: unknown): string | null {
  const advice = `generate one with \`${GENERATE_API_KEY}\`, or leave it unset to have one generated and logged on first start`;
  if (typeof value !== 'string' || !API_KEY_PATTERN.test(value)) {
    return `must be pkt_ followed by 64 lowercase hex characters: ${advice}`;
  }
  const weak = weakApiKeyProblem(value);
  return weak === null ? null : `${weak}: ${advice}`;
}
