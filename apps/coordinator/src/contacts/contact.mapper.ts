import type { ContactEntity, ContactError } from './contact.entity.js';
import { redactDetails, type Channel } from './channels.js';

/** The Contact of the API spec, with secrets redacted. */
export interface ContactJson {
  id: string;
  name: string;
  channel: Channel;
  details: Record<string, unknown>;
  active: boolean;
  down_alerts_only: boolean;
  created_at: number;
  error: ContactError | null;
}

export function toContactJson(contact: ContactEntity): ContactJson {
  return {
    id: contact.id,
    name: contact.name,
    channel: contact.channel,
    details: redactDetails(contact.channel, contact.details),
    active: contact.active,
    down_alerts_only: contact.downAlertsOnly,
    created_at: contact.createdAt,
    error: contact.error,
  };
}

/** What reactivate returns (the spec: id, name, channel, active, down_alerts_only). */
export function toContactStateJson(contact: ContactEntity) {
  return {
    id: contact.id,
    name: contact.name,
    channel: contact.channel,
    active: contact.active,
    down_alerts_only: contact.downAlertsOnly,
  };
}
