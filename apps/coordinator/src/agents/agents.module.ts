import { Module } from '@nestjs/common';
import { AgentsStore } from './agents.store.js';
import { CheckerAddressesController } from './checker-addresses.controller.js';

/** Agents as the database knows them: `agents list`, the checker address list. */
@Module({
  controllers: [CheckerAddressesController],
  providers: [AgentsStore],
  exports: [AgentsStore],
})
export class AgentsModule {}
