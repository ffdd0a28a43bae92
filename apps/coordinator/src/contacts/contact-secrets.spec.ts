import { describe, expect, it } from '@jest/globals';
import { CHANNEL_TABLE, CHANNELS, REDACTED, redactDetails, type Channel } from './channels.js';
import { channelsWithSecrets, joinSecrets, splitSecrets } from './contact-secrets.js';

/** One stored details object per channel, each secret field set. */
const SAMPLES: { readonly [K in Channel]: Record<string, unknown> } = {
  email: { email: 'ops@example.com' },
  webhook: { url: 'https://hooks.example.com/x', secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2Vj' },
  chatone: { webhook_url: 'https://chat.example.com/a' },
  chattwo: { webhook_url: 'https://chat.example.com/b' },
  chatthree: { webhook_url: 'https://chat.example.com/c' },
  paging: { integration_key: 'R0UTINGKEY', severity_mapping: { critical: 'critical' }, auto_resolve_incidents: true },
  incidentmgmt: { webhook_url: 'https://incidents.example.com', bearer_token: 'T0KEN', auto_resolve_incidents: true },
  alerting: { api_key: 'AP1KEY', priority: 'P3', tags: [], eu_instance: false },
  ticketing: { subdomain: 'acme', email: 'ops@example.com', api_token: 'ZD-T0KEN', priority: 'normal' },
  push: { endpoint: 'https://push.example.com/sub/1', keys: { p256dh: 'BP', auth: 'AU' } },
};

describe('contact secrets at rest', () => {
  it.each(CHANNELS)('%s: exactly the fields the API redacts are sealed, and come back whole', (channel) => {
    const details = SAMPLES[channel];
    const { stored, secrets } = splitSecrets(channel, details);
    expect(Object.keys(secrets).sort()).toEqual([...CHANNEL_TABLE[channel].secrets].sort());
    // What stays in the table is what the API shows (without the derived fields), in the same order.
    const shown = redactDetails(channel, details);
    expect(Object.keys(stored)).toEqual(Object.keys(details));
    for (const key of Object.keys(stored)) expect(stored[key]).toEqual(shown[key]);
    const json = JSON.stringify(stored);
    for (const value of Object.values(secrets)) expect(json).not.toContain(JSON.stringify(value));
    expect(joinSecrets(channel, stored, secrets)).toEqual(details);
  });

  it('a secret left unset is stored as it is (null), with nothing to seal', () => {
    const details = { url: 'https://hooks.example.com/x', secret: null };
    expect(splitSecrets('webhook', details)).toEqual({ stored: details, secrets: {} });
  });

  it('a [REDACTED] without its sealed value is an error, never sent as the credential', () => {
    expect(() => joinSecrets('paging', { integration_key: REDACTED }, {})).toThrow(/lack "integration_key"/);
  });

  it('the channels with something to seal come from the table', () => {
    expect(channelsWithSecrets()).toEqual(CHANNELS.filter((c) => CHANNEL_TABLE[c].secrets.length > 0));
    expect(channelsWithSecrets()).toContain('paging');
    expect(channelsWithSecrets()).not.toContain('email');
  });
});
