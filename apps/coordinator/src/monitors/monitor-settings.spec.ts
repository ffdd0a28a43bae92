import { describe, expect, it } from '@jest/globals';
import { splitSettings } from '#contracts';
import { checkInput } from '#validation';
import { MonitorSettingsDto } from './monitor-settings.js';

describe('splitSettings', () => {
  function settings(input: unknown) {
    const { value, problems } = checkInput(MonitorSettingsDto, input);
    expect(problems).toEqual([]);
    return splitSettings(value!);
  }

  it('fills check_certificate_expiration and keeps only the optional fields that were set, in a fixed order', () => {
    const result = settings({ https: { follow_redirect: false, url: 'https://example.com', http_method: 'HEAD' } });
    expect(result.type).toBe('https');
    expect(Object.entries(result.settings)).toEqual([
      ['url', 'https://example.com'],
      ['check_certificate_expiration', false],
      ['http_method', 'HEAD'],
      ['follow_redirect', false],
    ]);
  });

  it('stores tcp and ping settings as their url only', () => {
    expect(settings({ tcp: { url: 'tcp://db:5432' } })).toEqual({ type: 'tcp', settings: { url: 'tcp://db:5432' } });
    expect(settings({ ping: { url: 'ping://[::1]' } })).toEqual({ type: 'ping', settings: { url: 'ping://[::1]' } });
  });

  it('reports nested problems with their full paths', () => {
    const { problems } = checkInput(MonitorSettingsDto, { https: { url: 'gopher://x', extra: 1 } }, 'settings');
    expect(problems).toEqual([
      { field: 'settings.https.extra', message: 'is not a known field' },
      { field: 'settings.https.url', message: 'must be an absolute http:// or https:// URL' },
    ]);
  });
});
