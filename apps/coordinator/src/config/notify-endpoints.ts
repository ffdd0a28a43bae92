/**
 * Vendor base URLs: operator settings (tests, EU/Gov instances, successors such as Jira
 * Service Management), never contact fields (docs/decisions/0011-notification-channels.md §1).
 * The defaults of PAGERDUTY_EVENTS_URL, OPSGENIE_API_URL, OPSGENIE_EU_API_URL and ZENDESK_API_URL.
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
