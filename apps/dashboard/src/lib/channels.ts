/**
 * The contact form, generated from this one table of channels and their detail fields (the
 * API's channel table, as a browser needs it). Fields the form does not show (severity
 * mapping, responders, custom fields) are kept by the API on PUT: details merge field by field.
 */

export type FieldKind = 'text' | 'email' | 'url' | 'secret' | 'select' | 'checkbox' | 'tags';

export interface ChannelField {
  key: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: readonly string[];
  hint?: string;
  /** The API's default, shown in a new form. */
  initial?: string | boolean;
}

export interface ChannelSpec {
  label: string;
  fields: readonly ChannelField[];
}

const webhookUrl = (hint: string): ChannelField => ({
  key: 'webhook_url',
  label: 'Webhook URL',
  kind: 'url',
  required: true,
  hint,
});

export const CHANNELS = {
  email: { label: 'E-mail', fields: [{ key: 'email', label: 'E-mail address', kind: 'email', required: true }] },
  webhook: {
    label: 'Webhook',
    fields: [
      { key: 'url', label: 'URL', kind: 'url', required: true, hint: 'http:// or https://' },
      {
        key: 'secret',
        label: 'Signing secret',
        kind: 'secret',
        hint: 'whsec_…: signs each request (Standard Webhooks). Optional.',
      },
    ],
  },
  chatone: { label: 'Slack', fields: [webhookUrl('The incoming webhook URL (https).')] },
  chattwo: { label: 'Discord', fields: [webhookUrl('The channel webhook URL (https).')] },
  chatthree: { label: 'Microsoft Teams', fields: [webhookUrl('The Workflows webhook URL (https).')] },
  paging: {
    label: 'PagerDuty',
    fields: [
      { key: 'integration_key', label: 'Integration key', kind: 'secret', required: true },
      { key: 'auto_resolve_incidents', label: 'Resolve the incident on recovery', kind: 'checkbox', initial: true },
    ],
  },
  incidentmgmt: {
    label: 'incident.io',
    fields: [
      webhookUrl('The HTTP alert source URL (https).'),
      { key: 'bearer_token', label: 'Bearer token', kind: 'secret', required: true },
      { key: 'auto_resolve_incidents', label: 'Resolve the alert on recovery', kind: 'checkbox', initial: true },
    ],
  },
  alerting: {
    label: 'Opsgenie',
    fields: [
      { key: 'api_key', label: 'API key', kind: 'secret', required: true },
      { key: 'priority', label: 'Priority', kind: 'select', options: ['P1', 'P2', 'P3', 'P4', 'P5'], initial: 'P3' },
      { key: 'tags', label: 'Tags', kind: 'tags', hint: 'Comma-separated.' },
      { key: 'auto_close_alerts', label: 'Close the alert on recovery', kind: 'checkbox', initial: true },
      { key: 'eu_instance', label: 'EU instance', kind: 'checkbox', initial: false },
    ],
  },
  ticketing: {
    label: 'Zendesk',
    fields: [
      { key: 'subdomain', label: 'Subdomain', kind: 'text', required: true, hint: 'acme for acme.zendesk.com' },
      { key: 'email', label: 'Agent e-mail', kind: 'email', required: true },
      { key: 'api_token', label: 'API token', kind: 'secret', required: true },
      {
        key: 'priority',
        label: 'Priority',
        kind: 'select',
        options: ['low', 'normal', 'high', 'urgent'],
        initial: 'normal',
      },
      { key: 'tags', label: 'Tags', kind: 'tags', hint: 'Comma-separated.' },
      { key: 'auto_solve_tickets', label: 'Solve the ticket on recovery', kind: 'checkbox', initial: true },
    ],
  },
} as const satisfies Record<string, ChannelSpec>;

export type Channel = keyof typeof CHANNELS;
export const CHANNEL_IDS = Object.keys(CHANNELS) as Channel[];
export const REDACTED = '[REDACTED]';

export type FormValue = string | boolean;

/** The form's values: a contact's details as the API returned them, or the defaults of a new one. */
export function formValues(channel: Channel, details?: Record<string, unknown>): Record<string, FormValue> {
  const values: Record<string, FormValue> = {};
  for (const field of CHANNELS[channel].fields as readonly ChannelField[]) {
    const value = details?.[field.key];
    if (field.kind === 'checkbox') values[field.key] = typeof value === 'boolean' ? value : field.initial === true;
    else if (field.kind === 'tags') values[field.key] = Array.isArray(value) ? value.join(', ') : '';
    else values[field.key] = typeof value === 'string' ? value : typeof field.initial === 'string' ? field.initial : '';
  }
  return values;
}

/**
 * The `details` to send. A secret still `[REDACTED]` is sent as is (the API keeps the stored
 * one); an optional field left empty is left out on create and cleared (null) only where the
 * API allows it (the webhook secret).
 */
export function detailsBody(
  channel: Channel,
  values: Record<string, FormValue>,
  editing: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of CHANNELS[channel].fields as readonly ChannelField[]) {
    const value = values[field.key];
    if (field.kind === 'checkbox') {
      body[field.key] = value === true;
    } else if (field.kind === 'tags') {
      body[field.key] = String(value ?? '')
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean);
    } else {
      const text = String(value ?? '').trim();
      if (text !== '') body[field.key] = text;
      else if (editing && field.key === 'secret' && channel === 'webhook') body[field.key] = null;
      else if (field.required) body[field.key] = '';
    }
  }
  return body;
}
