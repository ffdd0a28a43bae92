import { Expose, Transform } from 'class-transformer';
import { ArrayMinSize, IsIn, IsInt, IsIP, IsString, Matches, Max, Min } from 'class-validator';
import { hostname } from 'node:os';
import { DEFAULT_SUBJECT_PREFIX, REGION_IDS, SUBJECT_PREFIX_PATTERN, type RegionId } from '#contracts';
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

/** The agent's configuration, validated once at boot. */
export class AgentConfig extends NatsEnv {
  /** Regions this agent serves (comma-separated). */
  @Expose()
  @Transform(commaList)
  @ArrayMinSize(1)
  @IsIn(REGION_IDS, { each: true, message: `each region must be one of ${REGION_IDS.join(', ')}` })
  AGENT_REGIONS: RegionId[] = [...REGION_IDS];

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
  const problems = natsSecurityProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
