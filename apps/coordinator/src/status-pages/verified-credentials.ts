import { createHmac, randomBytes } from 'node:crypto';

/** Verified credentials kept at most (the oldest used goes first). */
export const VERIFIED_CREDENTIALS_MAX = 1000;
/** A verification is trusted this long, then scrypt runs again. */
export const VERIFIED_CREDENTIALS_MS = 10 * 60_000;
/** Client address buckets remembered per credential (see `admitted`). */
const ADDRESSES_MAX = 16;

interface Entry {
  pageId: string;
  /** The stored hash it was verified against: a changed password (here or on another replica) misses. */
  stored: string;
  at: number;
  /** Address buckets already answered 200 with these credentials. */
  addresses: Set<string>;
}

/**
 * Status-page credentials recently verified (docs/decisions/0020-secrets-at-rest.md): scrypt costs
 * tens of milliseconds, too much for every view of a protected page. Bounded (least recently used
 * out first) and timed by the caller's clock. Keyed by an HMAC, under a random key of this
 * process, of the page id and the Authorization header as sent: neither the password nor a plain
 * hash of it is kept. An entry only matches while the page's stored hash is the one it was
 * verified against, and a page's entries are dropped when the page changes.
 */
export class VerifiedCredentials {
  private readonly entries = new Map<string, Entry>();
  private readonly hmacKey = randomBytes(32);

  constructor(
    private readonly max = VERIFIED_CREDENTIALS_MAX,
    private readonly ttlMs = VERIFIED_CREDENTIALS_MS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  keyOf(pageId: string, authorization: string): string {
    return createHmac('sha256', this.hmacKey).update(`${pageId}\n${authorization}`).digest('base64');
  }

  /** Whether these credentials were verified against `stored` within the last ttl. */
  verified(key: string, stored: string, now: number): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    if (entry.stored !== stored || now - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return false;
    }
    this.entries.delete(key); // most recently used last
    this.entries.set(key, entry);
    return true;
  }

  /**
   * Whether `bucket` was already answered 200 with these verified credentials: that address has
   * had its answer, so the failure budget need not be read again for it (failure-throttle.ts).
   */
  admitted(key: string, bucket: string): boolean {
    return this.entries.get(key)?.addresses.has(bucket) ?? false;
  }

  /** Notes verified credentials, and the address bucket answered 200 with them. */
  remember(key: string, pageId: string, stored: string, bucket: string, now: number): void {
    let entry = this.entries.get(key);
    if (!entry || entry.stored !== stored) {
      entry = { pageId, stored, at: now, addresses: new Set() };
      this.entries.set(key, entry);
    }
    if (entry.addresses.size >= ADDRESSES_MAX) entry.addresses.clear();
    entry.addresses.add(bucket);
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /**
   * A failure was charged to `bucket`: its budget may now be spent, so no credentials count as
   * admitted for it until the budget was read again.
   */
  forgetAddress(bucket: string): void {
    for (const entry of this.entries.values()) entry.addresses.delete(bucket);
  }

  forgetPage(pageId: string): void {
    for (const [key, entry] of this.entries) if (entry.pageId === pageId) this.entries.delete(key);
  }
}
