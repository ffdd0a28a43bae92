import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import type { OutboxService } from '../notify/outbox.service.js';
import { CertificateWatch } from './certificate-watch.js';

const NOW_S = 1_767_268_800;
const DAY = 86_400;

describe('CertificateWatch', () => {
  it('asks the outbox once per certificate and crossed threshold, and again after a failed attempt', async () => {
    const calls: number[] = [];
    let fail = false;
    const outbox = {
      recordCertificate: (_id: string, notAfter: number) => {
        calls.push(notAfter);
        return fail ? Promise.reject(new Error('database unreachable')) : Promise.resolve([]);
      },
    } as unknown as OutboxService;
    const clock = new ManualClock(NOW_S * 1000);
    const watch = new CertificateWatch(outbox, clock);
    const cert = NOW_S + 10 * DAY;
    await watch.observe('m', cert);
    await watch.observe('m', cert);
    expect(calls).toEqual([cert]); // 14 days crossed, recorded once
    clock.advance(9.5 * DAY * 1000); // now the 1-day threshold too
    fail = true;
    await expect(watch.observe('m', cert)).rejects.toThrow('database unreachable');
    fail = false;
    await watch.observe('m', cert);
    await watch.observe('m', cert);
    expect(calls).toEqual([cert, cert, cert]);
  });
});
