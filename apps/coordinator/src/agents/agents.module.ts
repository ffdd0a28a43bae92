import { Module } from '@nestjs/common';
import { AgentsRegistry } from './agents.registry.js';
import { AgentsStore } from './agents.store.js';
import { CheckerAddressesController } from './checker-addresses.controller.js';
import { HeartbeatController } from './heartbeat.controller.js';

/** Agents: who is present (heartbeats, presence.ts), and their rows for `agents list` and the checker address list. */
@Module({
  controllers: [CheckerAddressesController, HeartbeatController],
  providers: [AgentsStore, AgentsRegistry],
  exports: [AgentsStore, AgentsRegistry],
})
export class AgentsModule {}
