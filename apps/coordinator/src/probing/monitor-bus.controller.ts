import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { MonitorBus } from './monitor-bus.js';

/** The pattern other replicas' monitor notices are routed to (nats-routes.ts). */
export const MONITOR_CHANGED_PATTERN = 'monitor-changed';

/** Monitor notices from other coordinator replicas (the coordinator's microservice, NATS mode). */
@Controller()
export class MonitorBusController {
  constructor(private readonly bus: MonitorBus) {}

  @EventPattern(MONITOR_CHANGED_PATTERN)
  changed(@Payload() payload: unknown): void {
    this.bus.receive(payload);
  }
}
