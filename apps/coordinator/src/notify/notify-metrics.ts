import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { counter, METRICS, within, type Registry } from '#runtime';
import { METRICS_REGISTRY } from '../core.module.js';
import type { DeliveryClass } from './notifier.js';

/** How long a scrape waits for the outbox figures before answering with the last ones read. */
export const OUTBOX_READ_WAIT_MS = 250;

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

  /**
   * The outbox gauges come from the database, but a scrape never waits long for it: `/metrics`
   * must answer while the database is down, exactly when an operator needs it. A scrape starts
   * one read (never two at once) and waits for it at most OUTBOX_READ_WAIT_MS; past that it
   * reports the last figures read (during an outage, those from before it, while
   * `picket_database_up` says 0).
   */
  trackOutbox(read: () => Promise<{ pending: number; oldestAgeSeconds: number }>): void {
    let last = { pending: 0, oldestAgeSeconds: 0 };
    let reading: Promise<void> | null = null;
    const snapshot = async () => {
      reading ??= read()
        .then((figures) => {
          last = figures;
        })
        .catch(() => undefined)
        .finally(() => {
          reading = null;
        });
      await within(reading, OUTBOX_READ_WAIT_MS, undefined);
      return last;
    };
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
        this.set((await snapshot()).oldestAgeSeconds); // the same read as the gauge above
      },
    });
  }
}
