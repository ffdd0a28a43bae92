import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, newObjectId, type Clock } from '#runtime';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { AppError, notFound } from '../errors.js';
import { Dispatcher } from './dispatcher.js';
import { TEST_MONITOR_ID, type NotificationEvent } from './notification-event.js';
import type { DeliveryClass } from './notifier.js';

const CLASS_MEANING: Record<Exclude<DeliveryClass, 'ok'>, string> = {
  retry: 'temporarily unavailable',
  disable: 'refused (destination gone or credentials rejected)',
  bug: 'rejected the message',
  config: "could not be reached because of the server's configuration",
};

/**
 * POST /api/contacts/{id}/test: a real `contact.test` notification, sent synchronously
 * through the contact's channel (not the outbox: the caller waits for the answer). A refusal
 * is 422 naming class and status; provider bodies are never echoed.
 */
@Injectable()
export class ContactTestService {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly dispatcher: Dispatcher,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async send(accountId: string, contactId: string): Promise<{ message: string }> {
    const contact = await this.contacts.findOne(accountId, contactId);
    if (!contact) throw notFound.contact();
    const outcome = await this.dispatcher.attempt(contact.channel, contact.details, testEvent(this.clock.now()));
    if (outcome.class === 'ok') {
      return { message: `Test notification delivered to ${contact.channel} contact "${contact.name}".` };
    }
    const status = outcome.status === null ? '' : ` (status ${outcome.status})`;
    throw new AppError('VALIDATION_ERROR', `The destination ${CLASS_MEANING[outcome.class]}${status}.`, [
      { field: 'details', message: `${outcome.class}: ${outcome.detail}` },
    ]);
  }
}

export function testEvent(now: number): NotificationEvent {
  const seconds = Math.floor(now / 1000);
  return {
    id: newObjectId(now),
    event: 'contact.test',
    timestamp: seconds,
    monitor: {
      id: TEST_MONITOR_ID,
      name: 'Picket test notification',
      settings: { https: { url: 'https://example.com/', check_certificate_expiration: false } },
      target: 'https://example.com/',
      host: 'example.com',
    },
    status: 'up',
    error: null,
    incidentId: null,
    dedupKey: null,
    startedAt: null,
    durationSeconds: null,
    regions: [],
    certificateExpiresAt: null,
    severity: 'low',
    link: null,
    openRef: null,
  };
}
