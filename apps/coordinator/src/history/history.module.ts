import { Module } from '@nestjs/common';
import { MonitorsModule } from '../monitors/monitors.module.js';
import { RegionsModule } from '../regions/regions.module.js';
import { CheckResultsRepository } from './check-results.repository.js';
import { HistoryController } from './history.controller.js';
import { HistoryService } from './history.service.js';
import { ResultsRetention } from './results-retention.js';
import { ResultsWriter } from './results-writer.js';

/**
 * Check history: the batched ResultsWriter (exported for the probing pipeline), the
 * retention job, and GET /api/monitors/{id}/checks and /stats.
 */
@Module({
  imports: [MonitorsModule, RegionsModule],
  controllers: [HistoryController],
  providers: [CheckResultsRepository, ResultsWriter, ResultsRetention, HistoryService],
  exports: [ResultsWriter, CheckResultsRepository],
})
export class HistoryModule {}
