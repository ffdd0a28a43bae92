import { Module } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import { CoordinatorConfig } from '../config.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { DATA_SOURCE } from '../database/database.js';
import { generateVapidKeys } from './channels/push/vapid.js';
import { ContactTestController } from './contact-test.controller.js';
import { ContactTestService } from './contact-test.service.js';
import { DeliveriesController } from './deliveries.controller.js';
import { DeliveriesService } from './deliveries.service.js';
import { Dispatcher, NOTIFIERS } from './dispatcher.js';
import { HttpSender } from './http-sender.js';
import { createNotifierTable } from './notifiers.js';
import { NotifyMetrics } from './notify-metrics.js';
import { OutboxService } from './outbox.service.js';
import { loadOrCreateVapidKeys } from './vapid-keys.js';

/** Notifications: the outbox writer, the dispatcher, the channel notifiers, contact tests, delivery logs. */
@Module({
  imports: [ContactsModule],
  controllers: [ContactTestController, DeliveriesController],
  providers: [
    {
      provide: NOTIFIERS,
      inject: [CoordinatorConfig, DATA_SOURCE],
      useFactory: async (config: CoordinatorConfig, dataSource: DataSource) => {
        const ca = config.NOTIFY_CA_FILE ? [readFileSync(config.NOTIFY_CA_FILE, 'utf8')] : undefined;
        const vapid = await loadOrCreateVapidKeys(dataSource, generateVapidKeys);
        return createNotifierTable({
          http: new HttpSender({ ca, egress: config.egress() }),
          endpoints: {
            pagerDutyEventsUrl: config.PAGERDUTY_EVENTS_URL,
            opsgenieApiUrl: config.OPSGENIE_API_URL,
            opsgenieEuApiUrl: config.OPSGENIE_EU_API_URL,
            zendeskApiUrl: config.ZENDESK_API_URL,
          },
          smtp: { url: config.SMTP_URL ?? null, from: config.SMTP_FROM, ca },
          vapid: { ...vapid, subject: config.VAPID_SUBJECT },
          publicUrl: config.PUBLIC_URL ?? null,
        });
      },
    },
    NotifyMetrics,
    OutboxService,
    Dispatcher,
    ContactTestService,
    DeliveriesService,
  ],
  exports: [OutboxService, Dispatcher],
})
export class NotifyModule {
  constructor(outbox: OutboxService, dispatcher: Dispatcher) {
    outbox.onWritten(() => dispatcher.wake());
  }
}
