import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, newObjectId, type Clock } from '#runtime';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { AppError, notFound } from '../errors.js';
import { Dispatcher } from './dispatcher.js';
import { TEST_MONITOR_ID, type NotificationEvent } from './notification-event.js';
import type { DeliveryClass } from './notifier.js';

const CLASS_MEANING: Record<Exclude<DeliveryClass, 'ok'>, string> = {
  retry: 'the destination is temporarily unavailable',
  disable: 'the destination refused it: gone, or credentials rejected',
  bug: 'the destination rejected the message',
  config: "the server's own configuration stands in the way",
};

/**
 * POST /api/contacts/{id}/test: a real `contact.test` notification, sent synchronously
 * through the contact's channel (not the outbox: the caller waits for the answer). A refusal
 * is 422 CONTACT_TEST_FAILED whose message names class and reason (VALIDATION_ERROR is kept
 * for bad requests: the contact itself is valid); provider bodies are never echoed
 * (docs/decisions/0006-contacts.md).
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
    throw new AppError(
      'CONTACT_TEST_FAILED',
      `Test notification not delivered: ${outcome.class}: ${outcome.detail} (${CLASS_MEANING[outcome.class]}).`,
    );
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
