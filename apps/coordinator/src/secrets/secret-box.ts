import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (docs/decisions/0020-secrets-at-rest.md): AES-256-GCM under the current key,
 * opened with the current key or the previous one (SECRETS_KEY_PREVIOUS, during a rotation).
 *
 * A sealed value is `v1:<key id>:<base64 of iv (12) ‖ tag (16) ‖ ciphertext>`. The key id is the
 * first 8 bytes of SHA-256 over the key (no secret: it tells which key sealed a value, and a
 * wrong key at once). The version, the key id and the caller's context (a contact's id) are the
 * additional authenticated data: a value moved to another row, or a header edited, does not open.
 */
export const SEALED_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^v1:([0-9a-f]{16}):([A-Za-z0-9+/]+={0,2})$/;

/** One key and where it came from (named in every message about it). */
export interface SecretsKey {
  key: Buffer;
  /** `SECRETS_KEY`, `SECRETS_KEY_PREVIOUS`, `the key file <path>`, `a key for this process only`. */
  source: string;
}

/** A value could not be opened: sealed by a key not configured, or with the wrong key or altered. */
export class SecretsKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsKeyError';
  }
}

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest().subarray(0, 8).toString('hex');
}

/** The key id of a sealed value, or null when the value is not one. */
export function sealedKeyId(sealed: string): string | null {
  return SEALED.exec(sealed)?.[1] ?? null;
}

/** Seals and opens short secrets; the one place that holds the keys. */
export class SecretBox {
  readonly currentKeyId: string;
  private readonly keys = new Map<string, SecretsKey>();

  constructor(
    private readonly current: SecretsKey,
    previous: SecretsKey | null = null,
  ) {
    this.currentKeyId = keyIdOf(current.key);
    this.keys.set(this.currentKeyId, current);
    if (previous) {
      const id = keyIdOf(previous.key);
      if (!this.keys.has(id)) this.keys.set(id, previous);
    }
  }

  /** Where the current key came from, for messages. */
  get currentSource(): string {
    return this.current.source;
  }

  /** Whether a value sealed with `keyId` can be opened. */
  knows(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(aad(this.currentKeyId, context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${SEALED_VERSION}:${this.currentKeyId}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plaintext; throws SecretsKeyError (naming SECRETS_KEY) rather than ever return garbage. */
  open(sealed: string, context: string): string {
    const match = SEALED.exec(sealed);
    if (!match) throw new SecretsKeyError(`a sealed secret (${context}) is not in the ${SEALED_VERSION} format`);
    const [, keyId = '', encoded = ''] = match;
    const entry = this.keys.get(keyId);
    if (!entry) throw new SecretsKeyError(this.unknownKeyMessage(keyId));
    const raw = Buffer.from(encoded, 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretsKeyError(`a sealed secret (${context}) is truncated`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(aad(keyId, context));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsKeyError(
        `a sealed secret (${context}) does not open with ${entry.source} (key id ${keyId}): it was altered or belongs to another row`,
      );
    }
  }

  /** The message when stored secrets were sealed by a key this process does not have. */
  unknownKeyMessage(keyId: string): string {
    const known = [...this.keys.entries()].map(([id, k]) => `${k.source} has key id ${id}`).join(', ');
    return (
      `stored secrets were sealed with key id ${keyId}, which is not the configured SECRETS_KEY ` +
      `(${known}). Set SECRETS_KEY to the key that sealed them (or SECRETS_KEY_PREVIOUS during a rotation); ` +
      'see "Secrets at rest" in docs/operations.md'
    );
  }
}

function aad(keyId: string, context: string): Buffer {
  return Buffer.from(`${SEALED_VERSION}:${keyId}:${context}`, 'utf8');
}

/** A SecretBox under a random key of this process only: for code and tests whose data dies with the process. */
export function ephemeralSecretBox(): SecretBox {
  return new SecretBox({ key: randomBytes(32), source: 'a key for this process only' });
}
