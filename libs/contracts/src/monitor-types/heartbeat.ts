import { described, Field, integer } from '#validation';
import { defineSettingsType } from './definition.js';

/**
 * The `heartbeat` monitor type (docs/decisions/0027-heartbeat-monitors.md): a passive monitor.
 * No agent probes it; the watched job (a backup, a cron job) pings `/ping/<token>` at least every
 * `period` seconds, and the monitor is down when no ping arrived within `period + grace` of the
 * last one (or of creation), or at once when the job reports `/ping/<token>/fail`.
 */

export const HEARTBEAT_LIMITS = {
  period: { min: 60, max: 2_592_000 },
  grace: { min: 60, max: 86_400 },
} as const;

export interface HeartbeatSettings {
  /** Seconds the job runs every. */
  period: number;
  /** Seconds a ping may be late before the monitor is down. */
  grace: number;
}

export class HeartbeatSettingsDto {
  @Field(
    described(integer(HEARTBEAT_LIMITS.period.min, HEARTBEAT_LIMITS.period.max), {
      type: 'integer',
      minimum: HEARTBEAT_LIMITS.period.min,
      maximum: HEARTBEAT_LIMITS.period.max,
      description: 'Seconds between two runs of the watched job: it pings at least this often.',
    }),
  )
  period!: number;
  @Field(
    described(integer(HEARTBEAT_LIMITS.grace.min, HEARTBEAT_LIMITS.grace.max), {
      type: 'integer',
      minimum: HEARTBEAT_LIMITS.grace.min,
      maximum: HEARTBEAT_LIMITS.grace.max,
      description: 'Seconds a ping may be late: the monitor is down when none arrived within period + grace.',
    }),
  )
  grace!: number;
  /** Read-only (shown on every read); a client may send it back unchanged, and it is ignored. */
  @Field(
    described((value) => (typeof value === 'string' ? null : 'must be a string'), {
      type: 'string',
      readOnly: true,
      description:
        'Read-only: the URL the watched job requests (GET, POST or HEAD) on every run; append `/fail` to report ' +
        'a failure. Ignored when sent.',
    }),
    { optional: true },
  )
  ping_url?: string;
}

export const heartbeatType = defineSettingsType({
  dto: HeartbeatSettingsDto,
  toSettings: (dto): HeartbeatSettings => ({ period: dto.period, grace: dto.grace }),
});
