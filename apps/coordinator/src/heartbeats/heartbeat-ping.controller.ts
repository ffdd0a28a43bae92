import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { HeartbeatPings } from './heartbeat-pings.js';

/** The pattern pings taken by other replicas are routed to (probing/nats-routes.ts). */
export const HEARTBEAT_PING_PATTERN = 'heartbeat-ping';

/** Pings of heartbeat monitors taken by other coordinator replicas (NATS mode). */
@Controller()
export class HeartbeatPingController {
  constructor(private readonly pings: HeartbeatPings) {}

  @EventPattern(HEARTBEAT_PING_PATTERN)
  async ping(@Payload() payload: unknown): Promise<void> {
    await this.pings.received(payload);
  }
}
