import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '#runtime';
import { crossedWarnings, OutboxService } from '../notify/outbox.service.js';

/**
 * Certificate warnings at 14 days and 1 day before notAfter (docs/decisions/0005-checks-and-status.md):
 * the outbox records each once per certificate and threshold; this remembers what it already
 * recorded so the database is asked once, not at every check.
 */
@Injectable()
export class CertificateWatch {
  /** `<monitor>:<notAfter>:<days>` already recorded. */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly outbox: OutboxService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** A result of `monitorId` showed a certificate valid until `notAfter` (Unix s). */
  async observe(monitorId: string, notAfter: number): Promise<void> {
    const now = Math.floor(this.clock.now() / 1000);
    const due = crossedWarnings(notAfter, now);
    const key = (days: number) => `${monitorId}:${notAfter}:${days}`;
    if (due.every((days) => this.recorded.has(key(days)))) return;
    await this.outbox.recordCertificate(monitorId, notAfter);
    for (const days of due) this.recorded.add(key(days));
  }
}
