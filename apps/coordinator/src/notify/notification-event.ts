import type { CheckStatus, RegionId, SettingsByType } from '#contracts';

export const NOTIFICATION_EVENTS = [
  'monitor.down',
  'monitor.down.reminder',
  'monitor.up',
  'certificate.expiring',
  'contact.test',
] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENTS)[number];

/**
 * Picket's severity levels; `paging` maps them through the contact's severity_mapping
 * (docs/decisions/0006-contacts.md).
 */
export type SeverityLevel = 'critical' | 'high' | 'medium' | 'low';

/** Placeholder monitor id of `contact.test` events. */
export const TEST_MONITOR_ID = '000000000000000000000000';

/**
 * Everything a notifier needs to tell people about one event, frozen when the event
 * happened (the outbox row's payload), so every retry sends the same facts.
 */
export interface NotificationEvent {
  /** The outbox row id (24 hex): `webhook-id` is `msg_<id>`; identical on every retry. */
  id: string;
  event: NotificationEventType;
  /** Unix seconds when the event happened (not when this attempt is sent). */
  timestamp: number;
  monitor: {
    id: string;
    name: string;
    /** The monitor's API `settings` object, e.g. `{ https: { url, … } }`. */
    settings: Partial<SettingsByType>;
    /** The target URL as the user wrote it. */
    target: string;
    /** The target's host (for PagerDuty `source`, email text). */
    host: string;
  };
  /** `down` or `up`; for certificate.expiring the monitor's current status. */
  status: 'up' | 'down';
  /** Short human cause when down (e.g. "HTTP 503", "connection refused"), else null. */
  error: string | null;
  incidentId: string | null;
  /**
   * The idempotency key at integrations: `<monitor_id>-<incident_id>` for an outage (its
   * reminders too, so paging tools fold them into the open alert),
   * `<monitor_id>-cert-<expires_at>` for a certificate warning, null for contact.test.
   */
  dedupKey: string | null;
  /** Unix seconds the outage started (down and up events). */
  startedAt: number | null;
  /** Outage length in seconds (up events). */
  durationSeconds: number | null;
  /** The evidence: the latest result per region when the event happened. */
  regions: { region: RegionId; status: CheckStatus; error: string | null }[];
  /** Unix seconds of the certificate's notAfter (certificate.expiring). */
  certificateExpiresAt: number | null;
  severity: SeverityLevel;
  /** A link to the monitor (PUBLIC_URL) or null when no public URL is configured. */
  link: string | null;
  /**
   * What the opening delivery of this outage to the same contact stored (Zendesk ticket id,
   * email Message-ID, Discord message id), on `monitor.up` and reminders; null on opening events.
   */
  openRef: string | null;
}
