import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { StatusFeed } from './status-feed.js';

/** The pattern other replicas' status notices are routed to (probing/nats-routes.ts). */
export const STATUS_CHANGED_PATTERN = 'status-changed';

/** Status changes other coordinator replicas recorded (the coordinator's microservice, NATS mode). */
@Controller()
export class StatusFeedController {
  constructor(private readonly feed: StatusFeed) {}

  @EventPattern(STATUS_CHANGED_PATTERN)
  changed(@Payload() payload: unknown): void {
    this.feed.receive(payload);
  }
}
