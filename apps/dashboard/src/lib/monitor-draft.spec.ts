import { describe, expect, it } from '@jest/globals';
import { bodyOf, DASHBOARD_DEFAULTS, draftOf, emptyDraft, shownFields } from './monitor-draft.ts';
import type { Monitor } from './monitors.ts';

describe('the monitor form', () => {
  it("starts from the dashboard's defaults, not the API's (fail_threshold 2, timeout 10, check_interval 300)", () => {
    expect(DASHBOARD_DEFAULTS).toEqual({ fail_threshold: 2, timeout: 10, check_interval: 300 });
    const body = bodyOf({ ...emptyDraft(), name: 'Shop', url: 'https://shop.example.com/' });
    expect(body).toMatchObject({ fail_threshold: 2, timeout: 10, check_interval: 300 });
    expect(body.settings).toEqual({
      https: {
        url: 'https://shop.example.com/',
        check_certificate_expiration: true,
        http_method: 'GET',
        follow_redirect: true,
      },
    });
  });

  it('sends one settings key, with only what that type takes', () => {
    const tcp = bodyOf({ ...emptyDraft(), type: 'tcp', url: ' tcp://db.example.com:5432 ', http_statuses: '200' });
    expect(tcp.settings).toEqual({ tcp: { url: 'tcp://db.example.com:5432' } });
    const https = bodyOf({ ...emptyDraft(), url: 'https://x.example/', http_statuses: '200-299', response_body: 'ok' });
    expect(https.settings).toEqual({
      https: {
        url: 'https://x.example/',
        check_certificate_expiration: true,
        http_method: 'GET',
        follow_redirect: true,
        http_statuses: '200-299',
        response_body: 'ok',
      },
    });
  });

  it('sends a number field that is not a number as typed, for the API to name it', () => {
    expect(bodyOf({ ...emptyDraft(), timeout: 'ten', check_interval: '' })).toMatchObject({
      timeout: 'ten',
      check_interval: '',
    });
    expect(bodyOf({ ...emptyDraft(), timeout: '15' })).toMatchObject({ timeout: 15 });
  });

  it('edits a monitor as the API returned it, and sends it back the same', () => {
    const monitor: Monitor = {
      id: 'a'.repeat(24),
      name: 'API',
      active: true,
      check_interval: 60,
      timeout: 30,
      fail_threshold: 3,
      regions: ['eu-west-1', 'us-east-1'],
      settings: {
        https: { url: 'https://api.example.com/health', check_certificate_expiration: false, http_method: 'HEAD' },
      },
      contacts: ['b'.repeat(24)],
      last_status: 'up',
      last_status_change: 1,
      last_checked_at: 1,
      created_at: 1,
      updated_at: 1,
    };
    expect(bodyOf(draftOf(monitor))).toEqual({
      name: 'API',
      settings: {
        https: {
          url: 'https://api.example.com/health',
          check_certificate_expiration: false,
          http_method: 'HEAD',
          follow_redirect: true,
        },
      },
      regions: ['eu-west-1', 'us-east-1'],
      check_interval: 60,
      timeout: 30,
      fail_threshold: 3,
      contacts: ['b'.repeat(24)],
    });
  });

  it("shows the API's errors on the fields of the chosen type", () => {
    expect(shownFields('ping')).toContain('settings.ping.url');
    expect(shownFields('ping')).not.toContain('settings.https.http_method');
    expect(shownFields('https')).toContain('settings.https.request_headers');
  });
});
