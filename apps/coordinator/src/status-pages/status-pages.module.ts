import { Module } from '@nestjs/common';
import { DashboardModule } from '../dashboard/dashboard.module.js';
import { HistoryModule } from '../history/history.module.js';
import { MaintenanceModule } from '../maintenance/maintenance.module.js';
import { MonitorsModule } from '../monitors/monitors.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { PagePasswordCheck } from './page-password-check.js';
import { PublicPagesController } from './public-pages.controller.js';
import { PublicPagesService } from './public-pages.service.js';
import { StatusPagePasswordsBoot } from './status-page-passwords.boot.js';
import { StatusPagesController } from './status-pages.controller.js';
import { StatusPagesRepository } from './status-pages.repository.js';
import { StatusPagesService } from './status-pages.service.js';

/** Status pages: the API (docs/decisions/0008-status-pages.md) and the public pages (HTML and JSON, no API key). */
@Module({
  imports: [DashboardModule, HistoryModule, MonitorsModule, RateLimitModule, MaintenanceModule],
  controllers: [StatusPagesController, PublicPagesController],
  providers: [
    StatusPagesRepository,
    StatusPagesService,
    PublicPagesService,
    StatusPagePasswordsBoot,
    PagePasswordCheck,
  ],
})
export class StatusPagesModule {}
