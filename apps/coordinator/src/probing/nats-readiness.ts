import { Inject, Injectable } from '@nestjs/common';
import { natsConnectedGauge, type NatsLink, type Registry } from '#runtime';
import { METRICS_REGISTRY } from '../core.module.js';
import { Readiness } from '../health/readiness.service.js';
import { NATS_LINK } from './nats-connection.js';

/**
 * With NATS_URL set, the coordinator is ready only while connected to NATS: without it every
 * check is UNKNOWN and other replicas miss its monitor changes. Embedded mode has no such part.
 * The same truth is exported as `picket_nats_connected` for alerting.
 */
@Injectable()
export class NatsReadiness {
  constructor(
    @Inject(NATS_LINK) link: NatsLink | null,
    readiness: Readiness,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    if (!link) return;
    natsConnectedGauge(registry, () => link.connected);
    readiness.register({
      name: 'nats',
      required: true,
      problem: () => link.problemNow,
    });
  }
}
