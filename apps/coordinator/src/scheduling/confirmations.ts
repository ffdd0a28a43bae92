import { Injectable } from '@nestjs/common';

/**
 * Requests for an out-of-rotation confirmation check: evaluation asks (a DOWN below the
 * threshold), the scheduler answers (Scheduler.confirmNow). The one edge of the check path that
 * points back upstream, named so that no stage calls back into another.
 */
@Injectable()
export class Confirmations {
  private handler: ((monitorId: string, afterRegionIndex: number) => void) | null = null;

  /** The scheduler's side: how a request is served. */
  serve(handler: (monitorId: string, afterRegionIndex: number) => void): void {
    this.handler = handler;
  }

  /** Asks for the region after `afterRegionIndex` of the monitor to check now. */
  request(monitorId: string, afterRegionIndex: number): void {
    this.handler?.(monitorId, afterRegionIndex);
  }
}
