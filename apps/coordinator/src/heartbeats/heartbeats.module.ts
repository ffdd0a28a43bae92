import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module.js';
import { MaintenanceModule } from '../maintenance/maintenance.module.js';
import { MonitorsModule } from '../monitors/monitors.module.js';
import { ProbingModule } from '../probing/probing.module.js';
import { HeartbeatPingController } from './heartbeat-ping.controller.js';
import { HeartbeatPings } from './heartbeat-pings.js';
import { HeartbeatWatch } from './heartbeat-watch.js';
import { HeartbeatsController } from './heartbeats.controller.js';

/**
 * Heartbeat monitors (docs/decisions/0027-heartbeat-monitors.md): the public ping routes, pings
 * taken by other replicas, and the deadlines of the heartbeats this replica owns. Results go
 * through the check path's ingestion (ProbingModule), so history, status, incidents and
 * notifications work as for probes.
 */
@Module({
  imports: [ProbingModule, MonitorsModule, HistoryModule, MaintenanceModule],
  controllers: [HeartbeatsController, HeartbeatPingController],
  providers: [HeartbeatPings, HeartbeatWatch],
  exports: [HeartbeatWatch],
})
export class HeartbeatsModule {}
