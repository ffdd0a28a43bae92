import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { counter, METRICS, type Registry } from '#runtime';
import { METRICS_REGISTRY } from '../core.module.js';
import type { DeliveryClass } from './notifier.js';

/** Notification metrics: deliveries by channel and outcome, outbox depth and age, deactivations. */
@Injectable()
export class NotifyMetrics {
  private readonly deliveries;
  private readonly deactivated: Counter;

  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {
    this.deliveries = counter(registry, METRICS.deliveries);
    this.deactivated = new Counter({
      name: METRICS.contactsDeactivated.name,
      help: METRICS.contactsDeactivated.help,
      registers: [registry],
    });
  }

  recordDelivery(channel: string, outcome: DeliveryClass): void {
    this.deliveries.inc({ channel, outcome });
  }

  recordDeactivation(): void {
    this.deactivated.inc();
  }

  /** The outbox gauges are read from the database at scrape time. */
  trackOutbox(read: () => Promise<{ pending: number; oldestAgeSeconds: number }>): void {
    let last: Promise<{ pending: number; oldestAgeSeconds: number }> | null = null;
    const snapshot = () => (last ??= read().finally(() => setTimeout(() => (last = null), 0)));
    new Gauge({
      name: METRICS.outboxPending.name,
      help: METRICS.outboxPending.help,
      registers: [this.registry],
      async collect() {
        this.set((await snapshot()).pending);
      },
    });
    new Gauge({
      name: METRICS.outboxOldest.name,
      help: METRICS.outboxOldest.help,
      registers: [this.registry],
      async collect() {
        this.set((await snapshot()).oldestAgeSeconds);
      },
    });
  }
}
