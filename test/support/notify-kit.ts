import type { NotificationEvent } from '../../apps/coordinator/src/notify/notification-event.js';
import { HttpSender } from '../../apps/coordinator/src/notify/http-sender.js';
import { DEFAULT_ENDPOINTS, type NotifierDeps } from '../../apps/coordinator/src/notify/notifier-deps.js';
import type { NotifierContext } from '../../apps/coordinator/src/notify/notifier.js';
import { testPki } from './tls.js';

/** A monitor.down event with plausible values; override what a test cares about. */
export function sampleEvent(overrides: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    id: '6650a1f0c2e4b0a1b2c3d4e7',
    event: 'monitor.down',
    timestamp: 1767261600,
    monitor: {
      id: '6650a1f0c2e4b0a1b2c3d4e5',
      name: 'API (prod)',
      settings: { https: { url: 'https://api.example.com/health', check_certificate_expiration: true } },
      target: 'https://api.example.com/health',
      host: 'api.example.com',
    },
    status: 'down',
    error: 'HTTP 503',
    incidentId: '6650a1f0c2e4b0a1b2c3d4e6',
    dedupKey: '6650a1f0c2e4b0a1b2c3d4e5-6650a1f0c2e4b0a1b2c3d4e6',
    startedAt: 1767261600,
    durationSeconds: null,
    regions: [
      { region: 'eu-west-1', status: 'down', error: 'HTTP 503' },
      { region: 'us-east-1', status: 'down', error: 'HTTP 503' },
    ],
    certificateExpiresAt: null,
    severity: 'critical',
    link: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
    openRef: null,
    ...overrides,
  };
}

/** Notifier dependencies aimed at 127.0.0.1 fakes, trusting the test CA. */
export async function testDeps(overrides: Partial<NotifierDeps> = {}): Promise<NotifierDeps> {
  const pki = await testPki();
  return {
    http: new HttpSender({ ca: [pki.ca], timeoutMs: 2000 }),
    endpoints: DEFAULT_ENDPOINTS,
    smtp: { url: null, from: 'Picket <picket@example.com>', ca: [pki.ca] },
    vapid: null,
    publicUrl: 'https://picket.example.com',
    ...overrides,
  };
}

export function testContext(now = () => Date.now()): NotifierContext {
  return { signal: AbortSignal.timeout(5000), now };
}
