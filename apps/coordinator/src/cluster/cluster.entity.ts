import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../database/columns.js';

/** One row per partition of the monitor space (seeded by the migration): who schedules it, until when. */
@Entity({ name: 'partition_leases' })
export class PartitionLeaseEntity {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_partition_leases' })
  partition!: number;

  /** The holding coordinator's replica id, '' when free. */
  @Column({ type: 'varchar', length: 64 })
  owner!: string;

  /** Unix ms; after it the lease may be taken by another replica. */
  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber })
  expiresAt!: number;
}

/** A running coordinator replica, heart-beating while it lives. */
@Entity({ name: 'coordinators' })
export class CoordinatorMemberEntity {
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'pk_coordinators' })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  version!: string;

  /** Unix ms. */
  @Column({ name: 'started_at', type: 'bigint', transformer: bigintNumber })
  startedAt!: number;

  /** Unix ms of its last heartbeat. */
  @Column({ name: 'last_seen_at', type: 'bigint', transformer: bigintNumber })
  lastSeenAt!: number;

  /** How it runs checks: `embedded` or `nats` ('' for replicas from before this was recorded). */
  @Column({ type: 'varchar', length: 16, default: '' })
  mode!: string;

  /** Its NATS subject prefix in `nats` mode ('' otherwise). */
  @Column({ name: 'subject_prefix', type: 'varchar', length: 255, default: '' })
  subjectPrefix!: string;

  /** How it shares out the partitions (partitions.ts Assignment; '' for replicas from before this was recorded). */
  @Column({ type: 'varchar', length: 16, default: '' })
  assignment!: string;
}

/** The cluster feature's tables, for the data source (entities.ts). */
export const CLUSTER_ENTITIES = [PartitionLeaseEntity, CoordinatorMemberEntity];
