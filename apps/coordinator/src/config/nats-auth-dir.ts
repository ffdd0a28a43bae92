import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decode, fromSeed, type Account } from '@nats-io/jwt';
import { NATS_INIT_FILES } from '../nats-auth/nats-init.js';

/** What the coordinator reads from NATS_AUTH_DIR (docs/decisions/0030-private-regions.md). */
export const NATS_AUTH_DIR_FILES = [
  NATS_INIT_FILES.accountJwt,
  NATS_INIT_FILES.accountSigningSeed,
  NATS_INIT_FILES.operatorSigningSeed,
  NATS_INIT_FILES.systemCreds,
] as const;

/**
 * Everything wrong with NATS_AUTH_DIR, checked once at boot: it needs NATS_URL, its files must be
 * readable, and the account signing key must be one the Picket account JWT names (else every
 * credential the coordinator issued would be refused by the servers). Never prints a key.
 */
export function natsAuthDirProblems(dir: string, natsUrl: string | undefined): string[] {
  if (!natsUrl) return ['NATS_AUTH_DIR: set without NATS_URL (nothing to issue credentials for)'];
  const root = resolve(dir);
  const texts = new Map<string, string>();
  const problems: string[] = [];
  for (const name of NATS_AUTH_DIR_FILES) {
    try {
      texts.set(name, readFileSync(join(root, name), 'utf8').trim());
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      problems.push(
        `NATS_AUTH_DIR (${root}): ${name} cannot be read${typeof code === 'string' ? ` (${code})` : ''}; it must be the directory \`npm run cli -- nats init\` wrote`,
      );
    }
  }
  if (problems.length > 0) return problems;
  try {
    const account = decode<Account>(texts.get(NATS_INIT_FILES.accountJwt) ?? '');
    const signer = fromSeed(new TextEncoder().encode(texts.get(NATS_INIT_FILES.accountSigningSeed) ?? ''));
    if (
      !(account.nats.signing_keys ?? []).some(
        (key) => (typeof key === 'string' ? key : key.key) === signer.getPublicKey(),
      )
    )
      problems.push(
        `NATS_AUTH_DIR (${root}): ${NATS_INIT_FILES.accountSigningSeed} is not a signing key of ${NATS_INIT_FILES.accountJwt}`,
      );
    const operator = fromSeed(new TextEncoder().encode(texts.get(NATS_INIT_FILES.operatorSigningSeed) ?? ''));
    if (!operator.getPublicKey().startsWith('O'))
      problems.push(`NATS_AUTH_DIR (${root}): ${NATS_INIT_FILES.operatorSigningSeed} is not an operator key`);
  } catch (error) {
    problems.push(
      `NATS_AUTH_DIR (${root}): unreadable NATS material (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return problems;
}
