import { Injectable } from '@nestjs/common';
import type { MonitorEntity } from './monitor.entity.js';

/** A monitor as saved (created, updated, paused or resumed), or gone. */
export type MonitorChange = { kind: 'saved'; monitor: MonitorEntity } | { kind: 'deleted'; monitorId: string };

/**
 * Committed monitor changes, for whoever schedules checks: create, update, pause, resume and
 * delete take effect at once without the API knowing about scheduling.
 */
@Injectable()
export class MonitorEvents {
  private readonly listeners: ((change: MonitorChange) => void)[] = [];

  subscribe(listener: (change: MonitorChange) => void): void {
    this.listeners.push(listener);
  }

  emit(change: MonitorChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
