import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { SecureContextOptions } from 'node:tls';
import { Expose, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
import { DEFAULT_SUBJECT_PREFIX, SUBJECT_PREFIX_PATTERN } from '#contracts';
import { natsAuthDirProblems } from './config/nats-auth-dir.js';
import { DEFAULT_BATCH_WINDOW_MS } from './probing/batch-window.js';
import {
  ConfigError,
  digitsToInt,
  loadEnv,
  maskUrlCredentials,
  maskUrlList,
  NATS_URL_MESSAGE,
  NATS_URL_PATTERN,
  natsSecurityProblems,
  NatsEnv,
  LOG_LEVELS,
  Secret,
  type LogLevel,
} from '#runtime';
import { bootstrapKeyProblem } from './config/api-key-pattern.js';
import { parseCheckerAddresses, type ConfiguredAddresses } from './config/checker-addresses.js';
import { parseCorsOrigins } from './config/cors-origins.js';
import { parseDatabaseUrl, SQLITE_CACHE_MB_DEFAULT, type DatabaseTarget } from './config/database-url.js';
import { parseSecretsKey } from './config/secrets-key.js';
import { DEFAULT_ENDPOINTS } from './config/notify-endpoints.js';
import { loadTlsFiles } from './config/tls-files.js';

/**
 * The coordinator's configuration: environment variables, read and validated once at boot
 * (docs/decisions/0010-egress-policy.md, "Configuration"). Nothing else reads process.env. It imports no feature: what reads or
 * describes a single value (its parser, pattern or default) lives in config/, and features
 * import it from there.
 */
export class CoordinatorConfig extends NatsEnv {
  /** `sqlite:<path>` (embedded default) or `postgres://user@host:port/db`. */
  @Expose()
  @Secret(maskUrlCredentials)
  @Matches(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, { message: 'must be sqlite:<path> or postgres://…' })
  DATABASE_URL = 'sqlite:./data/picket.db';

  /**
   * SQLite's page cache in MiB (unused with PostgreSQL): memory against reads served from the
   * operating system's cache (docs/decisions/0045-a-smaller-sqlite-page-cache.md).
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of MiB' })
  @Min(1)
  @Max(4096)
  SQLITE_CACHE_MB = SQLITE_CACHE_MB_DEFAULT;

  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(0)
  @Max(65535)
  PORT = 8080;

  @Expose()
  @IsString()
  @Matches(/^[0-9A-Za-z.:_-]+$/, { message: 'must be a host name or IP address' })
  HOST = '0.0.0.0';

  /** With TLS_KEY_FILE: serve HTTPS (TLS 1.2 or later) from this PEM certificate (chain); SIGHUP re-reads both. */
  @Expose()
  @IsOptional()
  @IsString()
  TLS_CERT_FILE?: string;

  /** The PEM private key of TLS_CERT_FILE. */
  @Expose()
  @IsOptional()
  @IsString()
  TLS_KEY_FILE?: string;

  // ---- the HTTP edge (docs/decisions/0017-http-edge-hardening.md) ------------------------

  /** Seconds a client has to send a request's headers; a slower connection is answered 400 and closed. */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(1)
  @Max(600)
  HTTP_HEADERS_TIMEOUT_SECONDS = 10;

  /** Seconds a client has to send a whole request, body included (at least HTTP_HEADERS_TIMEOUT_SECONDS). */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(1)
  @Max(3600)
  HTTP_REQUEST_TIMEOUT_SECONDS = 30;

  /**
   * Browser origins that may call `/api` cross-origin, comma-separated (`https://dash.example.com`);
   * unset: none. Public status-page JSON is readable from any origin regardless.
   */
  @Expose()
  @IsOptional()
  @ValidateBy({
    name: 'corsOrigins',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && typeof parseCorsOrigins(value) !== 'string',
      defaultMessage: (args) => {
        const problem = parseCorsOrigins(String(args?.value));
        return `must be comma-separated origins such as https://dash.example.com (${typeof problem === 'string' ? problem : 'not a string'})`;
      },
    },
  })
  CORS_ORIGINS?: string;

  /**
   * Registered as the `default` account's key on first start instead of a random one. A key too
   * regular to have come from a random source (all zeros, a repeated block) is refused
   * (docs/decisions/0018-abuse-limits-and-quotas.md).
   */
  @Expose()
  @IsOptional()
  @Secret()
  @ValidateBy({
    name: 'bootstrapApiKey',
    validator: {
      validate: (value: unknown) => bootstrapKeyProblem(value) === null,
      defaultMessage: (args) => bootstrapKeyProblem(args?.value) ?? 'is not a usable API key',
    },
  })
  BOOTSTRAP_API_KEY?: string;

  /**
   * The key that seals contact secrets at rest (AES-256-GCM): 32 bytes, hex or base64. Unset with
   * SQLite: a key file beside the database, made on first start. Unset with PostgreSQL: the
   * coordinator refuses to start (docs/decisions/0020-secrets-at-rest.md).
   */
  @Expose()
  @IsOptional()
  @Secret()
  @ValidateBy({
    name: 'secretsKey',
    validator: {
      validate: (value: unknown) => typeof parseSecretsKey(value) !== 'string',
      defaultMessage: (args) => String(parseSecretsKey(args?.value)),
    },
  })
  SECRETS_KEY?: string;

  /** The key before the last rotation: still opens what it sealed until `secrets rotate` re-sealed it. */
  @Expose()
  @IsOptional()
  @Secret()
  @ValidateBy({
    name: 'secretsKeyPrevious',
    validator: {
      validate: (value: unknown) => typeof parseSecretsKey(value) !== 'string',
      defaultMessage: (args) => String(parseSecretsKey(args?.value)),
    },
  })
  SECRETS_KEY_PREVIOUS?: string;

  /**
   * NATS server(s), comma-separated. Set: checks go to regional agents over NATS. Unset
   * (embedded mode): this process checks every region itself. `tls://` turns TLS on;
   * `nats://user:pass@host` and `nats://token@host` authenticate (docs/decisions/0019-securing-nats.md).
   */
  @Expose()
  @IsOptional()
  @Matches(NATS_URL_PATTERN, { message: NATS_URL_MESSAGE })
  @Secret(maskUrlList)
  NATS_URL?: string;

  /** Prefix of the NATS subjects; the same on coordinators and agents (default `picket`). */
  @Expose()
  @Matches(SUBJECT_PREFIX_PATTERN, { message: 'must be dot-separated tokens of letters, digits, _ and -' })
  NATS_SUBJECT_PREFIX = DEFAULT_SUBJECT_PREFIX;

  /**
   * The directory `npm run cli -- nats init` wrote, when NATS runs with its decentralised (JWT)
   * authentication: the coordinator then issues private regions' enrollment tokens and agent
   * credentials, and pushes revocations (docs/decisions/0030-private-regions.md). Needs NATS_URL.
   */
  @Expose()
  @IsOptional()
  @IsString()
  NATS_AUTH_DIR?: string;

  /** `false` stops scheduling checks (the API keeps working): maintenance, tests. */
  @Expose()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  CHECKS_ENABLED: 'true' | 'false' = 'true';

  /**
   * This replica's id in the partition leases (default: host name plus a random suffix, new
   * at every start). Must be unique among running coordinators.
   */
  @Expose()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be 1-64 letters, digits, dots, dashes or underscores' })
  COORDINATOR_ID = `${
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 50) || 'coordinator'
  }-${randomBytes(4).toString('hex')}`;

  /**
   * Seconds a replica's partition leases last without renewal (renewed every quarter of it):
   * when a replica dies, its monitors move to the others within about 1.25× this.
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(2)
  @Max(120)
  COORDINATOR_LEASE_SECONDS = 10;

  /**
   * Checker addresses published per region besides those agents report (NAT, embedded mode):
   * `eu-west-1=203.0.113.5,2001:db8::5;us-east-1=198.51.100.7`.
   */
  @Expose()
  @IsOptional()
  @ValidateBy({
    name: 'checkerAddresses',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && typeof parseCheckerAddresses(value) !== 'string',
      defaultMessage: (args) => {
        const problem = parseCheckerAddresses(String(args?.value));
        return `must be region=address,address;… (${typeof problem === 'string' ? problem : 'not a string'})`;
      },
    },
  })
  CHECKER_ADDRESSES?: string;

  /**
   * The API budget of each account, in points per rolling hour
   * (docs/decisions/0003-auth-permissions-rate-limit.md), shared by all replicas.
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of points' })
  @Min(10)
  @Max(100_000_000)
  RATE_LIMIT_POINTS_PER_HOUR = 5000;

  /**
   * Failed authentications each client address may make per rolling hour, counted apart for API
   * keys and for status-page basic auth; past them 429 (docs/decisions/0018-abuse-limits-and-quotas.md).
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of failures' })
  @Min(1)
  @Max(1_000_000)
  AUTH_FAILURES_PER_HOUR = 60;

  /**
   * scrypt's N, as a power of two, for new dashboard passwords and the unknown-email decoy:
   * 17 (128 MiB and a few hundred milliseconds per sign-in) is the OWASP minimum for scrypt;
   * lower only where that memory cannot be spared (docs/decisions/0032-password-hash-cost.md).
   * Stored with each hash, so existing hashes keep verifying after a change.
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number (the power of two of scrypt N)' })
  @Min(14)
  @Max(20)
  PASSWORD_SCRYPT_LOG_N = 17;

  /** Monitors an account may have, paused ones included; a create past it is 403 QUOTA_EXCEEDED. */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of monitors' })
  @Min(1)
  @Max(100_000_000)
  MAX_MONITORS_PER_ACCOUNT = 10_000;

  /** Contacts an account may have; a create past it is 403 QUOTA_EXCEEDED. */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of contacts' })
  @Min(1)
  @Max(100_000_000)
  MAX_CONTACTS_PER_ACCOUNT = 1000;

  /** Embedded mode: checks this process runs at once (more are UNKNOWN, "at capacity"). */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(1)
  @Max(100_000)
  EMBEDDED_MAX_IN_FLIGHT = 2000;

  /**
   * NATS mode: how long checks due for one region are collected into one message to its agents
   * (docs/decisions/0034-batched-probe-traffic.md); 0 sends each check alone. At most
   * MAX_COALESCING_DELAY_MS (50): no check leaves later than its slot + 50 ms because of it.
   * Default 40 (docs/decisions/0049-a-40-ms-batch-window.md).
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of milliseconds' })
  @Min(0)
  @Max(50)
  PROBE_BATCH_WINDOW_MS = DEFAULT_BATCH_WINDOW_MS;

  // ---- notifications ----------------------------------------------------------------------

  /** SMTP relay for e-mail contacts: `smtp://user:pass@host:587` (STARTTLS) or `smtps://…:465`. */
  @Expose()
  @IsOptional()
  @Secret(maskUrlCredentials)
  @Matches(/^smtps?:\/\/[^\s]+$/, { message: 'must be smtp://user:pass@host:port or smtps://…' })
  SMTP_URL?: string;

  /** Sender of notification e-mails. */
  @Expose()
  @IsString()
  @Matches(/^[^\r\n]{3,200}$/, { message: 'must be an address such as "Picket <picket@example.com>"' })
  SMTP_FROM = 'Picket <picket@localhost>';

  /** Base URL of this Picket, for links in notifications (none when unset). */
  @Expose()
  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  PUBLIC_URL?: string;

  /** Vendor endpoints: operator settings (EU/Gov instances, successors, tests), never contact fields. */
  @Expose()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  PAGERDUTY_EVENTS_URL = DEFAULT_ENDPOINTS.pagerDutyEventsUrl;

  @Expose()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  OPSGENIE_API_URL = DEFAULT_ENDPOINTS.opsgenieApiUrl;

  @Expose()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  OPSGENIE_EU_API_URL = DEFAULT_ENDPOINTS.opsgenieEuApiUrl;

  @Expose()
  @Matches(/^https?:\/\/[^\s]*\{subdomain\}[^\s]*$/, { message: 'must be an http(s) URL containing {subdomain}' })
  ZENDESK_API_URL = DEFAULT_ENDPOINTS.zendeskApiUrl;

  /** A PEM file of extra CAs trusted by notifications (private PKI, tests). */
  @Expose()
  @IsOptional()
  @IsString()
  NOTIFY_CA_FILE?: string;

  /** `mailto:` or `https:` contact sent to Web Push services with the VAPID signature. */
  @Expose()
  @Matches(/^(mailto:[^\s]+|https:\/\/[^\s]+)$/, { message: 'must be a mailto: or https: URL' })
  VAPID_SUBJECT = 'mailto:picket@localhost';

  /** `false` holds notifications in the outbox (maintenance); they are sent when it is true again. */
  @Expose()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  DISPATCH_ENABLED: 'true' | 'false' = 'true';

  @Expose()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  @Expose()
  @IsIn(['text', 'json'])
  LOG_FORMAT: 'text' | 'json' = 'text';

  /**
   * Check results held in memory while the database is unreachable (docs/decisions/0001); past
   * this the oldest are dropped, counted in picket_outage_dropped_total and logged.
   */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(1000)
  @Max(10_000_000)
  OUTAGE_BUFFER_RESULTS = 100_000;

  /** Status changes held in memory while the database is unreachable; past this the oldest are dropped. */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(100)
  @Max(1_000_000)
  OUTAGE_BUFFER_TRANSITIONS = 10_000;

  /** Days raw check results are kept; daily roll-ups are kept max(90, this) days. */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number of days' })
  @Min(1)
  @Max(3650)
  RESULTS_RETENTION_DAYS = 30;

  /**
   * `true`: /metrics also has series per monitor (success and duration of the latest check per
   * region, certificate expiry, status), labelled only by monitor id, type and region; about
   * 2 × regions + 2 series per active monitor this replica checks
   * (docs/decisions/0021-per-monitor-metrics-and-node-24.md). Off by default.
   */
  @Expose()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  METRICS_PER_MONITOR: 'true' | 'false' = 'false';

  /** The HTTPS options (TLS_CERT_FILE and TLS_KEY_FILE, read now), or undefined for plain HTTP. */
  get tls(): SecureContextOptions | undefined {
    if (!this.TLS_CERT_FILE || !this.TLS_KEY_FILE) return undefined;
    return loadTlsFiles(this.TLS_CERT_FILE, this.TLS_KEY_FILE);
  }

  get database(): DatabaseTarget {
    const target = parseDatabaseUrl(this.DATABASE_URL);
    if (!target) throw new Error('DATABASE_URL was validated at load time');
    return target.dialect === 'sqlite' ? { ...target, cacheMb: this.SQLITE_CACHE_MB } : target;
  }

  /** CORS_ORIGINS as a set of lower-case origins (empty when unset). */
  get corsOrigins(): ReadonlySet<string> {
    const origins = parseCorsOrigins(this.CORS_ORIGINS ?? '');
    if (typeof origins === 'string') throw new Error('CORS_ORIGINS was validated at load time');
    return origins;
  }

  /** CHECKER_ADDRESSES by region ({} when unset). */
  get checkerAddresses(): ConfiguredAddresses {
    const configured = parseCheckerAddresses(this.CHECKER_ADDRESSES ?? '');
    if (typeof configured === 'string') throw new Error('CHECKER_ADDRESSES was validated at load time');
    return configured;
  }
}

export function loadCoordinatorConfig(env: Readonly<Record<string, string | undefined>>): CoordinatorConfig {
  const config = loadEnv(CoordinatorConfig, env);
  if (Boolean(config.TLS_CERT_FILE) !== Boolean(config.TLS_KEY_FILE)) {
    throw new ConfigError(['TLS_CERT_FILE and TLS_KEY_FILE: set both (HTTPS) or neither (HTTP)']);
  }
  if (config.HTTP_HEADERS_TIMEOUT_SECONDS > config.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError([
      `HTTP_HEADERS_TIMEOUT_SECONDS (${config.HTTP_HEADERS_TIMEOUT_SECONDS}) may not exceed HTTP_REQUEST_TIMEOUT_SECONDS (${config.HTTP_REQUEST_TIMEOUT_SECONDS})`,
    ]);
  }
  const natsProblems = natsSecurityProblems(config);
  if (config.NATS_AUTH_DIR) natsProblems.push(...natsAuthDirProblems(config.NATS_AUTH_DIR, config.NATS_URL));
  if (natsProblems.length > 0) throw new ConfigError(natsProblems);
  try {
    void config.tls; // unreadable or mismatched files stop the process at boot
  } catch (error) {
    throw new ConfigError([error instanceof Error ? error.message : String(error)]);
  }
  return config;
}
