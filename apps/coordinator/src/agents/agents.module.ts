import { Module } from '@nestjs/common';
import { AgentsRegistry } from './agents.registry.js';
import { AgentsStore } from './agents.store.js';
import { CheckerAddressesController } from './checker-addresses.controller.js';

/** Agents: who is present (heartbeats, presence.ts), and their rows for `agents list` and the checker address list. */
@Module({
  controllers: [CheckerAddressesController],
  providers: [AgentsStore, AgentsRegistry],
  exports: [AgentsStore, AgentsRegistry],
})
export class AgentsModule {}
