import { describe, expect, it } from '@jest/globals';
import { CHANNEL_IDS, CHANNELS, detailsBody, formValues, REDACTED } from './channels.ts';

describe('the contact form table', () => {
  it('has every channel that can be created (push is registered by browsers, never through the API)', () => {
    expect(CHANNEL_IDS).toEqual([
      'email',
      'webhook',
      'chatone',
      'chattwo',
      'chatthree',
      'paging',
      'incidentmgmt',
      'alerting',
      'ticketing',
    ]);
    for (const id of CHANNEL_IDS) expect(CHANNELS[id].fields.some((f) => 'required' in f && f.required)).toBe(true);
  });

  it("a new contact's form starts from the API's defaults", () => {
    expect(formValues('alerting')).toEqual({
      api_key: '',
      priority: 'P3',
      tags: '',
      auto_close_alerts: true,
      eu_instance: false,
    });
  });

  it('keeps a redacted secret as [REDACTED] when untouched, so the API keeps the stored one', () => {
    const values = formValues('ticketing', {
      subdomain: 'acme',
      email: 'ops@acme.example',
      api_token: REDACTED,
      priority: 'high',
      tags: ['web', 'prod'],
      custom_fields: [{ id: 1, value: 'x' }],
      auto_solve_tickets: false,
    });
    expect(values).toEqual({
      subdomain: 'acme',
      email: 'ops@acme.example',
      api_token: REDACTED,
      priority: 'high',
      tags: 'web, prod',
      auto_solve_tickets: false,
    });
    expect(detailsBody('ticketing', values, true)).toEqual({
      subdomain: 'acme',
      email: 'ops@acme.example',
      api_token: REDACTED,
      priority: 'high',
      tags: ['web', 'prod'],
      auto_solve_tickets: false,
    });
  });

  it('sends a changed secret, leaves an empty optional field out, and lets the API name an empty required one', () => {
    expect(detailsBody('webhook', { url: ' https://hooks.example.com/x ', secret: '' }, false)).toEqual({
      url: 'https://hooks.example.com/x',
    });
    expect(detailsBody('webhook', { url: 'https://hooks.example.com/x', secret: '' }, true)).toEqual({
      url: 'https://hooks.example.com/x',
      secret: null,
    });
    expect(detailsBody('paging', { integration_key: 'new-key', auto_resolve_incidents: false }, true)).toEqual({
      integration_key: 'new-key',
      auto_resolve_incidents: false,
    });
    expect(detailsBody('email', { email: '' }, false)).toEqual({ email: '' });
  });
});
