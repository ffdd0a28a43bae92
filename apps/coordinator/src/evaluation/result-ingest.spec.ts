import { describe, expect, it } from '@jest/globals';
import type { ProbeResult } from '#contracts';
import { createRegistry, ManualClock } from '#runtime';
import { probeResult } from '../../../../test/support/check-results.js';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import type { ResultsWriter } from '../history/results-writer.js';
import type { Cover, MaintenanceCalendar } from '../maintenance/maintenance-calendar.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import type { DueCheck } from '../scheduling/scheduler.js';
import type { CertificateWatch } from './certificate-watch.js';
import { Evidence } from './evidence.js';
import { ResultIngest } from './result-ingest.js';
import type { StatusEvaluation } from './status-evaluation.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaa01';
const NOW = Date.UTC(2026, 0, 1, 12);
const due: DueCheck = {
  monitorId: A,
  region: 'eu-west-1',
  regionIndex: 0,
  scheduledAt: NOW - 100,
  confirmation: false,
};

function setup(certificateError?: Error, cover: Cover | null = null) {
  const stored: ProbeResult[] = [];
  const flagged: boolean[] = [];
  const covers: (Cover | null)[] = [];
  const certificates: [string, number][] = [];
  const submitted: [string, number, ProbeResult][] = [];
  const { roster, partitions } = rosterWith(monitorEntity(A));
  const evidence = new Evidence(roster);
  const ingest = new ResultIngest(
    {
      add: (r: ProbeResult, _at: number, inMaintenance: boolean) => {
        stored.push(r);
        flagged.push(inMaintenance);
      },
    } as unknown as ResultsWriter,
    roster,
    evidence,
    {
      observe: (id: string, notAfter: number) => {
        certificates.push([id, notAfter]);
        return certificateError ? Promise.reject(certificateError) : Promise.resolve();
      },
    } as unknown as CertificateWatch,
    {
      submit: (id: string, regionIndex: number, r: ProbeResult, c: Cover | null) => {
        submitted.push([id, regionIndex, r]);
        covers.push(c);
        return Promise.resolve({ applied: false, reason: 'missing' });
      },
    } as unknown as StatusEvaluation,
    new CoordinatorMetrics(createRegistry()),
    new ManualClock(NOW),
    {
      coverOf: (accountId: string, monitorId: string, at: number) =>
        monitorId === A && accountId === roster.get(A)?.accountId && at === NOW / 1000 ? cover : null,
    } as unknown as MaintenanceCalendar,
  );
  return { ingest, stored, flagged, covers, certificates, submitted, roster, partitions, evidence };
}

describe('ResultIngest (the ingest stage)', () => {
  it('stores the result, keeps it as evidence, advances the last check, and hands it to evaluation', async () => {
    const s = setup();
    const result = probeResult(A, 'eu-west-1', 'down', null, due.scheduledAt);
    await s.ingest.accept(s.roster.get(A)!, due, result);
    expect(s.stored).toEqual([result]);
    expect(s.evidence.errorOf(A, 'eu-west-1')).toBe('HTTP 503');
    expect(s.roster.get(A)?.lastCheckedAt).toBe(NOW / 1000);
    expect(s.submitted).toEqual([[A, 0, result]]);
  });

  it('a result that arrives in a maintenance window is stored flagged and evaluation is told which window', async () => {
    const cover: Cover = { endsAt: NOW / 1000 + 600, windowId: 'bbbbbbbbbbbbbbbbbbbbbb01' };
    const s = setup(undefined, cover);
    await s.ingest.accept(s.roster.get(A)!, due, probeResult(A, 'eu-west-1', 'down', null, due.scheduledAt));
    expect(s.flagged).toEqual([true]);
    expect(s.covers).toEqual([cover]);
    const plain = setup();
    await plain.ingest.accept(plain.roster.get(A)!, due, probeResult(A, 'eu-west-1', 'down', null, due.scheduledAt));
    expect(plain.flagged).toEqual([false]);
    expect(plain.covers).toEqual([null]);
  });

  it('an UNKNOWN result is stored and evaluated but is not a check of the target', async () => {
    const s = setup();
    await s.ingest.accept(s.roster.get(A)!, due, probeResult(A, 'eu-west-1', 'unknown', null));
    expect(s.stored).toHaveLength(1);
    expect(s.roster.get(A)?.lastCheckedAt).toBeNull();
    expect(s.submitted).toHaveLength(1);
  });

  it('only stores the result of a monitor whose partition this replica lost', async () => {
    const s = setup();
    s.partitions.lost.add(A);
    await s.ingest.accept(s.roster.get(A)!, due, probeResult(A, 'eu-west-1', 'down', null));
    expect(s.stored).toHaveLength(1);
    expect(s.submitted).toEqual([]);
    expect(s.evidence.of(A)).toEqual({});
  });

  it('watches the certificate, and a failure to record a warning does not keep the result from evaluation', async () => {
    const s = setup(new Error('database unreachable'));
    const result = { ...probeResult(A, 'eu-west-1', 'up', 30), cert_not_after: NOW / 1000 + 86_400 };
    await s.ingest.accept(s.roster.get(A)!, due, result);
    expect(s.certificates).toEqual([[A, NOW / 1000 + 86_400]]);
    expect(s.submitted).toHaveLength(1);
  });
});
