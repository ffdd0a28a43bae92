import type { HttpSender } from './http-sender.js';

/**
 * Vendor base URLs: operator settings (tests, EU/Gov instances, successors such as Jira
 * Service Management), never contact fields (docs/decisions/0011-notification-channels.md §1).
 */
export interface NotifyEndpoints {
  /** PagerDuty Events API v2 enqueue URL. */
  pagerDutyEventsUrl: string;
  /** Opsgenie API base, and the one used when a contact has eu_instance: true. */
  opsgenieApiUrl: string;
  opsgenieEuApiUrl: string;
  /** Zendesk API base with a `{subdomain}` placeholder, e.g. `https://{subdomain}.zendesk.com`. */
  zendeskApiUrl: string;
}

export const DEFAULT_ENDPOINTS: NotifyEndpoints = {
  pagerDutyEventsUrl: 'https://events.pagerduty.com/v2/enqueue',
  opsgenieApiUrl: 'https://api.opsgenie.com',
  opsgenieEuApiUrl: 'https://api.eu.opsgenie.com',
  zendeskApiUrl: 'https://{subdomain}.zendesk.com',
};

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** `mailto:` or `https:` contact of the operator, sent to push services. */
  subject: string;
}

/** What notifiers are built from; everything a test needs to aim them at 127.0.0.1. */
export interface NotifierDeps {
  http: HttpSender;
  endpoints: NotifyEndpoints;
  smtp: {
    /** `smtp://user:pass@host:587` (STARTTLS required) or `smtps://…:465`; null: email not configured. */
    url: string | null;
    from: string;
    /** Extra trusted CAs for the relay's certificate (tests, private PKI). */
    ca?: string[];
  };
  /** The deployment's VAPID key pair (created on first start), or null before it exists. */
  vapid: VapidKeys | null;
  /** Base URL of this Picket for links in messages, or null. */
  publicUrl: string | null;
}
