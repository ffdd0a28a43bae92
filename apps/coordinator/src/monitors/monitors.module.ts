import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { MonitorEvents } from './monitor-events.js';
import { MonitorsController } from './monitors.controller.js';
import { MonitorsRepository } from './monitors.repository.js';
import { MonitorsService } from './monitors.service.js';

@Module({
  imports: [AuthModule],
  controllers: [MonitorsController],
  providers: [MonitorsRepository, MonitorsService, MonitorEvents],
  exports: [MonitorsRepository, MonitorEvents],
})
export class MonitorsModule {}
