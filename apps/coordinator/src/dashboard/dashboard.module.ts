import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module.js';
import { DashboardController } from './dashboard.controller.js';
import { DASHBOARD_DIR, DashboardFiles, defaultDashboardDir } from './dashboard-files.js';
import { OverviewPreload } from './overview-preload.js';

/** The web dashboard's files (docs/decisions/0023-dashboard.md); `/` itself is the public pages controller's. */
@Module({
  imports: [SessionsModule],
  controllers: [DashboardController],
  providers: [DashboardFiles, OverviewPreload, { provide: DASHBOARD_DIR, useFactory: () => defaultDashboardDir() }],
  exports: [DashboardFiles, OverviewPreload],
})
export class DashboardModule {}
