import { Module } from '@nestjs/common';
import { NatsAuthority } from '../nats-auth/nats-authority.js';
import { EnrollmentController } from './enrollment.controller.js';
import { EnrollmentRepository } from './enrollment.repository.js';
import { EnrollmentService } from './enrollment.service.js';
import { PrivateAgents } from './private-agents.js';
import { PrivateHeartbeatController } from './private-heartbeat.controller.js';
import { PrivateRegionsRepository } from './private-regions.repository.js';
import { RegionsController } from './regions.controller.js';
import { RegionsService } from './regions.service.js';

/** Private regions: the API, their agents' enrollment and heartbeats (docs/decisions/0030-private-regions.md). */
@Module({
  controllers: [RegionsController, PrivateHeartbeatController, EnrollmentController],
  providers: [
    PrivateRegionsRepository,
    RegionsService,
    PrivateAgents,
    EnrollmentRepository,
    EnrollmentService,
    NatsAuthority,
  ],
  exports: [PrivateRegionsRepository, PrivateAgents],
})
export class RegionsModule {}
