import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module.js';
import { MaintenanceModule } from '../maintenance/maintenance.module.js';
import { MonitorsModule } from '../monitors/monitors.module.js';
import { AccountFigures } from './account-figures.js';
import { MonitorSummaryController } from './monitor-summary.controller.js';
import { MonitorSummaryService } from './monitor-summary.service.js';

/** GET /api/monitor_summary (docs/decisions/0031-monitor-summary.md). */
@Module({
  imports: [MonitorsModule, HistoryModule, MaintenanceModule],
  controllers: [MonitorSummaryController],
  providers: [MonitorSummaryService, AccountFigures],
})
export class MonitorSummaryModule {}
