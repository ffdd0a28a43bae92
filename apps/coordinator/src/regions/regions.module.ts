import { Module } from '@nestjs/common';
import { PrivateAgents } from './private-agents.js';
import { PrivateHeartbeatController } from './private-heartbeat.controller.js';
import { PrivateRegionsRepository } from './private-regions.repository.js';
import { RegionsController } from './regions.controller.js';
import { RegionsService } from './regions.service.js';

/** Private regions: the API, their agents' heartbeats (docs/decisions/0030-private-regions.md). */
@Module({
  controllers: [RegionsController, PrivateHeartbeatController],
  providers: [PrivateRegionsRepository, RegionsService, PrivateAgents],
  exports: [PrivateRegionsRepository, PrivateAgents],
})
export class RegionsModule {}
