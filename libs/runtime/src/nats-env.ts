import { Expose, Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { EgressEnv } from './egress-env.js';
import { digitsToInt } from './env.js';

/**
 * The NATS start-up variable both apps share (docs/decisions/0001-truth-when-blind.md): both
 * configurations extend this class. NATS_URL itself differs (required by the agent, optional
 * for the coordinator) and stays with each app.
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
}
