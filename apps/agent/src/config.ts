import { Expose, Transform } from 'class-transformer';
import { ArrayMinSize, IsIn, IsInt, IsIP, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { accessSync, constants, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import {
  DEFAULT_SUBJECT_PREFIX,
  enrollTokenUser,
  isRegionId,
  PRIVATE_REGION_ID_PATTERN,
  REGION_IDS,
  SUBJECT_PREFIX_PATTERN,
  type MonitorRegionId,
  type RegionId,
} from '#contracts';
import {
  commaList,
  digitsToInt,
  loadEnv,
  LOG_FORMATS,
  LOG_LEVELS,
  maskUrlList,
  NATS_URL_MESSAGE,
  NATS_URL_PATTERN,
  natsSecurityProblems,
  NatsEnv,
  ConfigError,
  Secret,
  type LogFormat,
  type LogLevel,
} from '#runtime';

const PRIVATE_REGION_PATTERN = new RegExp(`^([0-9a-f]{24})/(${PRIVATE_REGION_ID_PATTERN.source.slice(1, -1)})$`);

/** The agent's configuration, validated once at boot. */
export class AgentConfig extends NatsEnv {
  /** Regions this agent serves (comma-separated). */
  @Expose()
  @Transform(commaList)
  @ArrayMinSize(1)
  @IsIn(REGION_IDS, { each: true, message: `each region must be one of ${REGION_IDS.join(', ')}` })
  AGENT_REGIONS: RegionId[] = [...REGION_IDS];

  /**
   * `<account id>/<region id>`: this agent serves that account's private region, and no public one
   * (docs/decisions/0030-private-regions.md). Exclusive with AGENT_REGIONS.
   */
  @Expose()
  @IsOptional()
  @Matches(PRIVATE_REGION_PATTERN, { message: 'must be <account id>/<private region id>' })
  AGENT_PRIVATE_REGION?: string;

  /**
   * A one-time enrollment token of the private region (from `POST /api/regions/{id}/agent_tokens`
   * or the dashboard): when NATS_CREDS_FILE does not exist yet, the agent exchanges it for NATS
   * credentials and writes them there (0600); once it exists, the token is not used again.
   */
  @Expose()
  @IsOptional()
  @IsString()
  @Secret()
  AGENT_ENROLL_TOKEN?: string;

  /** The private region served, when AGENT_PRIVATE_REGION is set. */
  get privateRegion(): { accountId: string; region: string } | null {
    const match =
      this.AGENT_PRIVATE_REGION === undefined ? null : PRIVATE_REGION_PATTERN.exec(this.AGENT_PRIVATE_REGION);
    return match ? { accountId: match[1] ?? '', region: match[2] ?? '' } : null;
  }

  /** Every region this agent answers for: its private region alone, or AGENT_REGIONS. */
  get servedRegions(): MonitorRegionId[] {
    const own = this.privateRegion;
    return own ? [own.region] : this.AGENT_REGIONS;
  }

  @Expose()
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be 1-64 letters, digits, dots, dashes or underscores' })
  AGENT_ID =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 64) || 'agent';

  /**
   * NATS server(s), comma-separated: where probe work arrives. Required. `tls://` turns TLS on;
   * `nats://user:pass@host` and `nats://token@host` authenticate (docs/decisions/0019-securing-nats.md).
   */
  @Expose()
  @Matches(NATS_URL_PATTERN, { message: NATS_URL_MESSAGE })
  @Secret(maskUrlList)
  NATS_URL!: string;

  /** Prefix of the NATS subjects; the same on coordinators and agents (default `picket`). */
  @Expose()
  @Matches(SUBJECT_PREFIX_PATTERN, { message: 'must be dot-separated tokens of letters, digits, _ and -' })
  NATS_SUBJECT_PREFIX = DEFAULT_SUBJECT_PREFIX;

  /** Checks this agent runs at once; more are answered UNKNOWN ("at capacity"). */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(1)
  @Max(100_000)
  AGENT_MAX_IN_FLIGHT = 2000;

  /** The agent's public egress addresses (comma-separated), published for firewall allow-lists. */
  @Expose()
  @Transform(commaList)
  @IsIP(undefined, { each: true, message: 'each entry must be an IPv4 or IPv6 address' })
  AGENT_PUBLIC_IPS: string[] = [];

  /** On SIGTERM: stop taking work, give running checks this long, then cancel them. */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(0)
  @Max(600)
  AGENT_DRAIN_SECONDS = 30;

  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(1)
  @Max(60)
  AGENT_HEARTBEAT_SECONDS = 5;

  /** Port of the agent's own small HTTP server (/healthz, later /metrics). */
  @Expose()
  @Transform(digitsToInt)
  @IsInt({ message: 'must be a whole number' })
  @Min(0)
  @Max(65535)
  AGENT_HTTP_PORT = 9464;

  @Expose()
  @IsString()
  AGENT_HTTP_HOST = '127.0.0.1';

  /** What the agent logs: `debug`, `info`, `warn` or `error`. */
  @Expose()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** `text`, or `json`: one JSON object a line, for log shippers. */
  @Expose()
  @IsIn(LOG_FORMATS, { message: `must be one of ${LOG_FORMATS.join(', ')}` })
  LOG_FORMAT: LogFormat = 'text';
}

export function loadAgentConfig(env: Readonly<Record<string, string | undefined>>): AgentConfig {
  const config = loadEnv(AgentConfig, env);
  const enrolling = needsEnrollment(config);
  // The creds file enrollment is to write is not there yet: judged as a place to write, not a file to read.
  const problems = natsSecurityProblems(config, { credsFileToWrite: enrolling });
  if (config.AGENT_ENROLL_TOKEN !== undefined) problems.push(...enrollmentProblems(config, enrolling));
  if (config.privateRegion && isRegionId(config.privateRegion.region)) {
    problems.push('AGENT_PRIVATE_REGION: must name a private region, not a public one (use AGENT_REGIONS)');
  }
  if (config.AGENT_PRIVATE_REGION !== undefined) {
    if (env.AGENT_REGIONS)
      problems.push(
        'AGENT_REGIONS: must not be set with AGENT_PRIVATE_REGION (a private agent serves its region only)',
      );
    else config.AGENT_REGIONS = [];
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** True when the agent is to enroll at start: a token, and no credentials written yet. */
export function needsEnrollment(config: AgentConfig): boolean {
  return Boolean(config.AGENT_ENROLL_TOKEN && config.NATS_CREDS_FILE && !existsSync(config.NATS_CREDS_FILE));
}

function enrollmentProblems(config: AgentConfig, enrolling: boolean): string[] {
  const problems: string[] = [];
  if (config.AGENT_PRIVATE_REGION === undefined)
    problems.push(
      'AGENT_ENROLL_TOKEN: needs AGENT_PRIVATE_REGION (<account id>/<region id>, the region the token is for)',
    );
  if (!config.NATS_CREDS_FILE) {
    problems.push('AGENT_ENROLL_TOKEN: needs NATS_CREDS_FILE, the file the agent writes its NATS credentials to');
    return problems;
  }
  if (!enrolling) return problems;
  if (enrollTokenUser(config.AGENT_ENROLL_TOKEN ?? '') === null)
    problems.push('AGENT_ENROLL_TOKEN: not an enrollment token (copy it whole, as the API or dashboard showed it)');
  const dir = dirname(resolve(config.NATS_CREDS_FILE));
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    problems.push(`NATS_CREDS_FILE (${config.NATS_CREDS_FILE}): its directory ${dir} is missing or not writable`);
  }
  return problems;
}
