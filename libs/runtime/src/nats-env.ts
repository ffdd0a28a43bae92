import { X509Certificate, createPrivateKey } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { Expose, Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { EgressEnv } from './egress-env.js';
import { digitsToInt, Secret } from './env.js';
import { credsFileAuthenticator, urlCredentials, type NatsSecurity } from './nats.js';

/**
 * NATS_URL's form, for both apps: `nats://` or `tls://` entries, comma-separated, all of one
 * scheme (TLS is on or off for the whole connection). Credentials may stand in the URL.
 */
export const NATS_URL_PATTERN = /^(nats:\/\/[^,\s]+(,\s*nats:\/\/[^,\s]+)*|tls:\/\/[^,\s]+(,\s*tls:\/\/[^,\s]+)*)$/i;
export const NATS_URL_MESSAGE =
  'must be nats://host:port or tls://host:port, comma-separated for a cluster (all of one scheme)';

/**
 * The NATS start-up variables both apps share (docs/decisions/0001-truth-when-blind.md,
 * docs/decisions/0019-securing-nats.md): both configurations extend this class. NATS_URL itself
 * differs (required by the agent, optional for the coordinator) and stays with each app; both
 * check it with NATS_URL_PATTERN and call natsSecurityProblems once loaded.
 */
export class NatsEnv extends EgressEnv {
  /**
   * Seconds to keep trying the first NATS connection before the process exits with a message;
   * 0 (the default) keeps trying for ever. Meanwhile /healthz answers and /readyz says not ready.
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(0)
  @Max(86_400)
  NATS_CONNECT_TIMEOUT_SECONDS = 0;

  /** With NATS_PASSWORD: the NATS user this process connects as. */
  @Expose()
  @IsOptional()
  @IsString()
  NATS_USER?: string;

  /** The password of NATS_USER. */
  @Expose()
  @IsOptional()
  @IsString()
  @Secret()
  NATS_PASSWORD?: string;

  /** A NATS authentication token (instead of a user). */
  @Expose()
  @IsOptional()
  @IsString()
  @Secret()
  NATS_TOKEN?: string;

  /** An NKey/JWT `.creds` file, or a file holding an NKey user seed; read at every (re)connection. */
  @Expose()
  @IsOptional()
  @IsString()
  NATS_CREDS_FILE?: string;

  /** PEM CA bundle the NATS servers' certificates must chain to; turns TLS on. */
  @Expose()
  @IsOptional()
  @IsString()
  NATS_CA_FILE?: string;

  /** With NATS_KEY_FILE: a PEM client certificate, for servers that verify clients; turns TLS on. */
  @Expose()
  @IsOptional()
  @IsString()
  NATS_CERT_FILE?: string;

  /** The PEM private key of NATS_CERT_FILE. */
  @Expose()
  @IsOptional()
  @IsString()
  NATS_KEY_FILE?: string;
}

/** The variables natsSecurityProblems reads: NatsEnv's, with the app's NATS_URL. */
export type NatsSecurityEnv = Pick<
  NatsEnv,
  'NATS_USER' | 'NATS_PASSWORD' | 'NATS_TOKEN' | 'NATS_CREDS_FILE' | 'NATS_CA_FILE' | 'NATS_CERT_FILE' | 'NATS_KEY_FILE'
> & { NATS_URL?: string };

/**
 * Everything wrong with the NATS security settings together, each naming its variables and
 * never a secret; empty when they are usable. Run once at boot: files must be readable and hold
 * what their variable says (PEM certificate, its key, credentials), one way to authenticate,
 * whole pairs, and none of it without NATS_URL. With `credsFileToWrite`, NATS_CREDS_FILE is a
 * file the process is about to write (an enrolling agent): it counts as the way to authenticate,
 * but is not read.
 */
export function natsSecurityProblems(env: NatsSecurityEnv, options: { credsFileToWrite?: boolean } = {}): string[] {
  const problems: string[] = [];
  const set = (name: keyof NatsSecurityEnv) => env[name] !== undefined && env[name] !== '';
  const settings = (
    [
      'NATS_USER',
      'NATS_PASSWORD',
      'NATS_TOKEN',
      'NATS_CREDS_FILE',
      'NATS_CA_FILE',
      'NATS_CERT_FILE',
      'NATS_KEY_FILE',
    ] as const
  ).filter(set);
  if (!set('NATS_URL')) {
    if (settings.length > 0) problems.push(`${settings.join(', ')}: set without NATS_URL (nothing to connect to)`);
    return problems;
  }
  const inUrl = Object.keys(urlCredentials(env.NATS_URL ?? '')).length > 0;

  if (set('NATS_USER') !== set('NATS_PASSWORD')) problems.push('NATS_USER and NATS_PASSWORD: set both or neither');
  if (set('NATS_CERT_FILE') !== set('NATS_KEY_FILE'))
    problems.push('NATS_CERT_FILE and NATS_KEY_FILE: set both or neither');

  const ways = [
    ...(inUrl ? ['credentials in NATS_URL'] : []),
    ...(set('NATS_USER') || set('NATS_PASSWORD') ? ['NATS_USER/NATS_PASSWORD'] : []),
    ...(set('NATS_TOKEN') ? ['NATS_TOKEN'] : []),
    ...(set('NATS_CREDS_FILE') ? ['NATS_CREDS_FILE'] : []),
  ];
  if (ways.length > 1) problems.push(`${ways.join(', ')}: choose one way to authenticate to NATS`);

  const read = (name: 'NATS_CREDS_FILE' | 'NATS_CA_FILE' | 'NATS_CERT_FILE' | 'NATS_KEY_FILE'): string | null => {
    const path = env[name];
    if (!path) return null;
    try {
      accessSync(path, constants.R_OK);
      return readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      problems.push(`${name} (${path}): cannot be read${typeof code === 'string' ? ` (${code})` : ''}`);
      return null;
    }
  };
  const ca = read('NATS_CA_FILE');
  if (ca !== null && !isCertificate(ca)) problems.push(`NATS_CA_FILE (${env.NATS_CA_FILE}): not a PEM certificate`);
  const cert = read('NATS_CERT_FILE');
  const key = read('NATS_KEY_FILE');
  if (cert !== null && !isCertificate(cert)) {
    problems.push(`NATS_CERT_FILE (${env.NATS_CERT_FILE}): not a PEM certificate`);
  } else if (cert !== null && key !== null && !keyMatches(cert, key)) {
    problems.push(`NATS_KEY_FILE (${env.NATS_KEY_FILE}): not the private key of the certificate in NATS_CERT_FILE`);
  }
  if (!options.credsFileToWrite && read('NATS_CREDS_FILE') !== null) {
    try {
      credsFileAuthenticator(env.NATS_CREDS_FILE!)('boot check');
    } catch {
      problems.push(
        `NATS_CREDS_FILE (${env.NATS_CREDS_FILE}): holds neither NATS user credentials (.creds) nor an NKey user seed`,
      );
    }
  }
  return problems;
}

/** The link's NatsSecurity from validated settings (files are read by the client at each connection). */
export function natsSecurityOf(env: NatsSecurityEnv): NatsSecurity {
  return {
    ...(env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD } : {}),
    ...(env.NATS_TOKEN ? { token: env.NATS_TOKEN } : {}),
    ...(env.NATS_CREDS_FILE ? { credsFile: env.NATS_CREDS_FILE } : {}),
    ...(env.NATS_CA_FILE ? { caFile: env.NATS_CA_FILE } : {}),
    ...(env.NATS_CERT_FILE ? { certFile: env.NATS_CERT_FILE, keyFile: env.NATS_KEY_FILE } : {}),
  };
}

function isCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

function keyMatches(cert: string, key: string): boolean {
  try {
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}
