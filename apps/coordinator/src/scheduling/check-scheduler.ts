import { Logger } from '@nestjs/common';
import { isProbedType } from '#contracts';
import type { Clock } from '#runtime';
import type { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import type { CheckDispatch } from '../probing/check-dispatch.js';
import type { Confirmations } from './confirmations.js';
import type { MonitorRoster } from './monitor-roster.js';
import { Scheduler } from './scheduler.js';
import type { Timers } from './timers.js';

export interface CheckSchedulerDeps {
  clock: Clock;
  timers: Timers;
  metrics: CoordinatorMetrics;
  roster: MonitorRoster;
  confirmations: Confirmations;
  dispatch: CheckDispatch;
}

/**
 * The first stage of the check path, wired: the scheduler plans the roster's monitors, serves
 * confirmation requests, and hands every due check to the dispatch stage. Started and stopped by
 * CheckPath.
 */
export function createCheckScheduler(deps: CheckSchedulerDeps): Scheduler {
  const logger = new Logger('Scheduler');
  const scheduler = new Scheduler({
    clock: deps.clock,
    timers: deps.timers,
    dispatch: (due) => deps.dispatch.send(due),
    onLateness: (lateMs) => deps.metrics.recordLateness(lateMs),
    onDispatchError: (error, due) => {
      deps.metrics.recordDispatchError('internal');
      logger.error(`dispatch of ${due.monitorId} failed: ${error instanceof Error ? error.stack : String(error)}`);
    },
  });
  deps.roster.onChange((change) => {
    if (change.kind === 'untracked') scheduler.remove(change.monitorId);
    // A heartbeat is never probed (docs/decisions/0027-heartbeat-monitors.md): HeartbeatWatch keeps its deadline.
    else if (!isProbedType(change.monitor.monitorType)) scheduler.remove(change.monitor.id);
    else {
      const { id, checkInterval, regions } = change.monitor;
      scheduler.upsert({ monitorId: id, intervalSeconds: checkInterval, regions });
    }
  });
  deps.confirmations.serve((monitorId, afterRegionIndex) => {
    scheduler.confirmNow(monitorId, afterRegionIndex);
  });
  return scheduler;
}
