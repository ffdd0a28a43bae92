import { PICKET_VERSION } from '#runtime';
import { sampleEvent } from '../../../../../test/support/notify-kit.js';
import { TEST_MONITOR_ID, type NotificationEvent } from '../notification-event.js';

/**
 * Event fixtures shared by the notifier specs (imported by specs only). They build on
 * `sampleEvent()` of test/support/notify-kit.ts, a monitor.down of "API (prod)" at T0 in two
 * failing regions; `testDeps()` and `testContext()` stay there.
 */

/**
 * What every notification request must carry as `User-Agent` (HTTP channels) or `X-Mailer`
 * (email): Picket's name and version, never the HTTP library's.
 */
export const PICKET_USER_AGENT = `Picket/${PICKET_VERSION}`;

/** 2026-01-01T10:00:00Z in Unix seconds: the sample event's timestamp. */
export const T0 = sampleEvent().timestamp;

/** T0 in milliseconds, for an injected clock (a whole second, so an HTTP-date converts back exactly). */
export const NOW = T0 * 1000;

const DAY = 86_400;

/**
 * One event of each kind for the same monitor; `overrides` replace fields of the result.
 * - monitor.down: `sampleEvent()`.
 * - monitor.down.reminder: the same outage 10 minutes on, with the opening delivery's ref.
 * - monitor.up: 12 minutes after T0, after 720 s down, every region up again.
 * - certificate.expiring: the certificate expires at T0 + 14 days (or `overrides.certificateExpiresAt`,
 *   which its dedup key follows), the monitor is up, at medium severity.
 * - contact.test: the placeholder "Test monitor" without target, regions or keys, at low severity.
 */
export function eventOf(
  type: NotificationEvent['event'],
  overrides: Partial<NotificationEvent> = {},
): NotificationEvent {
  const base = sampleEvent();
  switch (type) {
    case 'monitor.down':
      return sampleEvent(overrides);
    case 'monitor.down.reminder':
      return sampleEvent({
        event: 'monitor.down.reminder',
        timestamp: T0 + 600,
        openRef: '<inc-6650a1f0c2e4b0a1b2c3d4e5-down@picket.example>',
        ...overrides,
      });
    case 'monitor.up':
      return sampleEvent({
        event: 'monitor.up',
        timestamp: T0 + 720,
        status: 'up',
        error: null,
        durationSeconds: 720,
        regions: base.regions.map((r) => ({ ...r, status: 'up' as const, error: null })),
        ...overrides,
      });
    case 'certificate.expiring': {
      const expiresAt = overrides.certificateExpiresAt ?? T0 + 14 * DAY;
      return sampleEvent({
        event: 'certificate.expiring',
        status: 'up',
        error: null,
        incidentId: null,
        dedupKey: `${base.monitor.id}-cert-${expiresAt}`,
        startedAt: null,
        certificateExpiresAt: expiresAt,
        severity: 'medium',
        ...overrides,
      });
    }
    case 'contact.test':
      return sampleEvent({
        event: 'contact.test',
        monitor: { id: TEST_MONITOR_ID, name: 'Test monitor', settings: {}, target: '', host: '' },
        status: 'up',
        error: null,
        incidentId: null,
        dedupKey: null,
        startedAt: null,
        regions: [],
        severity: 'low',
        ...overrides,
      });
  }
}

/**
 * The four events the incident channels (paging, alerting, incidentmgmt, ticketing) open, close
 * and retry: each has an outbox id of its own; `up` closes `down`'s incident at T0 with the
 * regions as they were; the certificate expires on 2026-01-15 12:00 UTC (14 days and 2 hours
 * out); the test event is "Picket test" without a link.
 */
export const INCIDENT_EVENTS = {
  down: sampleEvent(),
  up: eventOf('monitor.up', { id: '6650a1f0c2e4b0a1b2c3d4f0', timestamp: T0, regions: sampleEvent().regions }),
  expiring: eventOf('certificate.expiring', { id: '6650a1f0c2e4b0a1b2c3d4f1', certificateExpiresAt: 1768478400 }),
  test: eventOf('contact.test', {
    id: '6650a1f0c2e4b0a1b2c3d4f2',
    monitor: { id: TEST_MONITOR_ID, name: 'Picket test', settings: {}, target: '', host: '' },
    link: null,
  }),
};
