import { Module } from '@nestjs/common';
import { MaintenanceCalendar } from './maintenance-calendar.js';
import { MaintenanceWindowsController } from './maintenance-windows.controller.js';
import { MaintenanceWindowsRepository } from './maintenance-windows.repository.js';
import { MaintenanceWindowsService } from './maintenance-windows.service.js';

/**
 * Maintenance windows: the API and the calendar the check path and the public pages ask
 * (docs/decisions/0026-maintenance-windows.md).
 */
@Module({
  controllers: [MaintenanceWindowsController],
  providers: [MaintenanceWindowsRepository, MaintenanceWindowsService, MaintenanceCalendar],
  exports: [MaintenanceCalendar, MaintenanceWindowsService],
})
export class MaintenanceModule {}
