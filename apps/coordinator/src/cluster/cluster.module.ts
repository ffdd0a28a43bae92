import { Module } from '@nestjs/common';
import { systemTimers, TIMERS } from '../scheduling/timers.js';
import { LeaseStore } from './lease.store.js';
import { PartitionManager } from './partition-manager.js';

/** Coordinator replicas: membership and the partition leases that split the monitors between them. */
@Module({
  providers: [LeaseStore, PartitionManager, { provide: TIMERS, useValue: systemTimers }],
  exports: [LeaseStore, PartitionManager],
})
export class ClusterModule {}
