import { Module } from '@nestjs/common';
import { DashboardController } from './dashboard.controller.js';
import { DASHBOARD_DIR, DashboardFiles, defaultDashboardDir } from './dashboard-files.js';

/** The web dashboard's files (docs/decisions/0023-dashboard.md); `/` itself is the public pages controller's. */
@Module({
  controllers: [DashboardController],
  providers: [DashboardFiles, { provide: DASHBOARD_DIR, useFactory: () => defaultDashboardDir() }],
  exports: [DashboardFiles],
})
export class DashboardModule {}
