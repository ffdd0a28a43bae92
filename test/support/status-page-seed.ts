import { TransitionWriter } from '../../apps/coordinator/src/transitions/transition.writer.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import type { ApiClient } from './api-client.js';
import { probeResult } from './check-results.js';
import type { RunningCoordinator } from './coordinator.js';

const DAY = 86_400;

/** Noon UTC, so every seeded result of "today" lies in today. Pass it to the coordinator's ManualClock. */
export const SEED_NOW_MS = Date.UTC(2026, 2, 15, 12, 0, 0);
const NOW = SEED_NOW_MS / 1000;

/** Words of the monitors' settings that must never reach a public page. */
export const SECRET_SETTINGS = ['internal.example.com', 's3cret', 'https://'];

export interface SeededMonitor {
  id: string;
  name: string;
}

export interface SeededPage {
  pageId: string;
  api: SeededMonitor;
  web: SeededMonitor;
}

/**
 * What the seeded page must show (period 7, today 2026-03-15):
 * - "Public API": 10 checks a day for 7 days, 2 of them DOWN three days ago (80 %), so
 *   68 / 70 = 97.1429 % over the period; down now (open incident "connection refused"), an
 *   earlier outage three days ago ("HTTP 503", 10 minutes); mean response 100 + 10·(days ago) ms.
 * - "Website": 10 UP checks a day for the last 6 days, none 6 days ago (a grey bar); up.
 */
export const SEEDED = {
  apiUptime: 97.1429,
  apiBadDay: { date: '2026-03-12', uptime_percent: 80, checks: 10 },
  webEmptyDay: '2026-03-09',
  incidentReasons: ['connection refused', 'HTTP 503'],
};

/**
 * Two monitors (their URLs full of secrets), a week of check results written through the real
 * ResultsWriter (so the daily roll-ups are Picket's own), incidents through the real transition writer,
 * and a status page over both with the given fields. The coordinator must run on a
 * ManualClock at SEED_NOW_MS.
 */
export async function seedStatusPage(
  c: RunningCoordinator,
  api: ApiClient,
  page: Record<string, unknown> = {},
): Promise<SeededPage> {
  const make = async (name: string, url: string): Promise<SeededMonitor> => {
    const res = await api.post('/api/monitors', {
      name,
      settings: { https: { url } },
      regions: ['eu-west-1', 'us-east-1'],
    });
    if (res.status !== 201) throw new Error(`monitor not created: ${res.text}`);
    return { id: res.body.data.id as string, name };
  };
  const apiMonitor = await make('Public API', 'https://api.internal.example.com/health?token=s3cret');
  const web = await make('Website', 'https://www.internal.example.com/');

  const writer = c.app.get(ResultsWriter);
  for (let back = 0; back < 7; back++) {
    for (let i = 0; i < 10; i++) {
      const at = NOW - back * DAY - i * 600;
      const region = i % 2 === 0 ? 'eu-west-1' : 'us-east-1';
      const apiDown = back === 3 && i < 2;
      writer.add(probeResult(apiMonitor.id, region, apiDown ? 'down' : 'up', apiDown ? null : 100 + back * 10), at);
      if (back < 6) writer.add(probeResult(web.id, region, 'up', 200), at);
    }
  }
  await writer.flush();

  const transitions = c.app.get(TransitionWriter);
  const transition = (monitorId: string, status: 'up' | 'down', changedAt: number, reason: string | null) =>
    transitions.write({ monitorId, status, changedAt, reason, evidence: {} });
  await transition(apiMonitor.id, 'down', NOW - 3 * DAY, 'HTTP 503');
  await transition(apiMonitor.id, 'up', NOW - 3 * DAY + 600, null);
  await transition(web.id, 'up', NOW - 6 * DAY, null);
  await transition(apiMonitor.id, 'down', NOW - 60, 'connection refused');

  const created = await api.post('/api/status_pages', {
    name: 'Acme <Status>',
    monitors: [apiMonitor.id, web.id],
    period: 7,
    ...page,
  });
  if (created.status !== 201) throw new Error(`page not created: ${created.text}`);
  return { pageId: created.body.data.id as string, api: apiMonitor, web };
}
