import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createUser, fmtCreds } from '@nats-io/jwt';
import {
  AuthorizationError,
  connect,
  jwtAuthenticator,
  UserAuthenticationExpiredError,
  type NatsConnection,
} from '@nats-io/transport-node';
import { enrollInboxPrefix, enrollTokenUser, subjectsFor, type EnrollReply } from '#contracts';
import { describeNatsError, maskUrlList, natsClientOptions, natsSecurityOf } from '#runtime';
import type { AgentConfig } from './config.js';
import { EnrollmentRefused } from './enrollment-refused.js';

export interface EnrollmentLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** Bounds of one try; tries are repeated (NATS or the coordinators may still be starting). */
const CONNECT_TIMEOUT_MS = 5000;
const REQUEST_TIMEOUT_MS = 10_000;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

/**
 * Exchanges AGENT_ENROLL_TOKEN for NATS credentials (docs/decisions/0030-private-regions.md): a
 * key pair is made here and only its public key is sent; the coordinator answers a user JWT for
 * it, limited to the region's subjects. The JWT and the seed are written to NATS_CREDS_FILE with
 * mode 0600 (through a new file renamed into place). Tries again while NATS or the coordinators
 * do not answer, until NATS_CONNECT_TIMEOUT_SECONDS (0: for ever); a refused token ends with
 * EnrollmentRefused.
 */
export async function enrollAgent(config: AgentConfig, logger: EnrollmentLogger): Promise<void> {
  const token = config.AGENT_ENROLL_TOKEN ?? '';
  const credsFile = config.NATS_CREDS_FILE ?? '';
  const tokenUser = enrollTokenUser(token);
  const own = config.privateRegion;
  if (!tokenUser || !own) throw new EnrollmentRefused('AGENT_ENROLL_TOKEN and AGENT_PRIVATE_REGION are required');
  const user = createUser();
  const deadline =
    config.NATS_CONNECT_TIMEOUT_SECONDS > 0 ? Date.now() + config.NATS_CONNECT_TIMEOUT_SECONDS * 1000 : Infinity;
  const { user: _u, pass: _p, token: _t, credsFile: _c, ...tls } = natsSecurityOf(config);
  const request = JSON.stringify({
    token,
    public_key: user.getPublicKey(),
    agent_id: config.AGENT_ID,
    account_id: own.accountId,
    region: own.region,
  });
  logger.log(`enrolling in private region ${own.region} through NATS ${maskUrlList(config.NATS_URL)}`);

  for (let retryMs = FIRST_RETRY_MS; ; retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)) {
    let problem: string;
    let nc: NatsConnection | null = null;
    try {
      nc = await connect({
        ...natsClientOptions(config.NATS_URL, tls),
        authenticator: jwtAuthenticator(token),
        inboxPrefix: enrollInboxPrefix(tokenUser),
        name: `picket-agent-${config.AGENT_ID}-enroll`,
        timeout: CONNECT_TIMEOUT_MS,
        maxReconnectAttempts: 0,
      });
      const answer = await nc.request(subjectsFor(config.NATS_SUBJECT_PREFIX).enroll, request, {
        timeout: REQUEST_TIMEOUT_MS,
      });
      const reply = answer.json<EnrollReply>();
      if (!reply.ok) throw new EnrollmentRefused(`enrollment refused: ${reply.error}`);
      if (reply.account_id !== own.accountId || reply.region !== own.region) {
        throw new EnrollmentRefused(
          `the token is for ${reply.account_id}/${reply.region}, not AGENT_PRIVATE_REGION ${own.accountId}/${own.region}`,
        );
      }
      writeCreds(credsFile, new TextDecoder().decode(fmtCreds(reply.jwt, user)));
      logger.log(
        `enrolled as agent ${reply.agent} of private region ${reply.region}; NATS credentials written to ${credsFile} (0600)`,
      );
      return;
    } catch (error) {
      if (error instanceof EnrollmentRefused) throw error;
      if (isAuthRefusal(error)) {
        throw new EnrollmentRefused(
          `NATS refused the enrollment token (${describeNatsError(error)}): it has expired, or was not issued for this NATS server; create a new one`,
        );
      }
      problem = describeFailure(error);
    } finally {
      await nc?.close().catch(() => undefined);
    }
    if (Date.now() + retryMs > deadline) {
      throw new EnrollmentRefused(
        `enrollment did not succeed within NATS_CONNECT_TIMEOUT_SECONDS (${config.NATS_CONNECT_TIMEOUT_SECONDS} s): ${problem}`,
      );
    }
    logger.warn(`enrollment not done yet: ${problem}; next try in ${retryMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

function isAuthRefusal(error: unknown): boolean {
  return error instanceof AuthorizationError || error instanceof UserAuthenticationExpiredError;
}

function describeFailure(error: unknown): string {
  const noResponders = (error as { isNoResponders?: () => boolean }).isNoResponders?.() === true;
  return noResponders
    ? 'no coordinator answers enrollment requests (the coordinators need NATS_AUTH_DIR)'
    : describeNatsError(error);
}

/** Writes the creds beside their final path with mode 0600, then renames them into place. */
function writeCreds(path: string, creds: string): void {
  const staged = `${path}.${process.pid}.new`;
  try {
    writeFileSync(staged, `${creds.trim()}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(staged, 0o600);
    renameSync(staged, path);
  } catch (error) {
    rmSync(staged, { force: true });
    throw error;
  }
}
