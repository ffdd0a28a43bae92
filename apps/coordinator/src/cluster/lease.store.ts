import { Injectable } from '@nestjs/common';
import { In, LessThan, MoreThan, type EntityManager } from 'typeorm';
import { Database } from '../database/database.js';
import { CoordinatorMemberEntity, PartitionLeaseEntity } from './cluster.entity.js';
import { ASSIGNMENT, type LeaseRow, type ReplicaMode } from './partitions.js';

/** Membership rows older than this are deleted (a replica that died long ago). */
const FORGET_MEMBERS_AFTER_MS = 24 * 3600_000;

/**
 * The database side of partition leasing. Every write is one conditional statement, so two
 * replicas racing for a partition can never both get it: the row's owner and expiry decide.
 * (Repository API and query builder, no raw SQL: docs/decisions/0012-raw-sql-where-kept.md.)
 */
@Injectable()
export class LeaseStore {
  constructor(private readonly db: Database) {}

  /** Records that replica `id` is alive at `now`, how it runs checks and how it shares out the partitions. */
  async heartbeat(id: string, version: string, startedAt: number, now: number, mode: ReplicaMode): Promise<void> {
    await this.db.manager.upsert(
      CoordinatorMemberEntity,
      {
        id,
        version,
        startedAt,
        lastSeenAt: now,
        mode: mode.mode,
        subjectPrefix: mode.subjectPrefix,
        assignment: ASSIGNMENT,
      },
      ['id'],
    );
  }

  /** Replicas whose heartbeat is younger than `ttlMs`. */
  async liveMembers(now: number, ttlMs: number): Promise<CoordinatorMemberEntity[]> {
    return this.db.manager.find(CoordinatorMemberEntity, {
      where: { lastSeenAt: MoreThan(now - ttlMs) },
      order: { id: 'ASC' },
    });
  }

  async leases(): Promise<LeaseRow[]> {
    const rows = await this.db.manager.find(PartitionLeaseEntity, { order: { partition: 'ASC' } });
    return rows.map(({ partition, owner, expiresAt }) => ({ partition, owner, expiresAt }));
  }

  /** Extends every lease `me` still holds to `expiresAt`; returns the partitions it holds. */
  async renew(me: string, expiresAt: number): Promise<number[]> {
    await this.db.manager.update(PartitionLeaseEntity, { owner: me }, { expiresAt });
    const rows = await this.db.manager.find(PartitionLeaseEntity, {
      where: { owner: me },
      select: { partition: true },
    });
    return rows.map((row) => row.partition);
  }

  /** Takes `partition` if it is free, already ours, or its lease ended by `now`. */
  async claim(me: string, partition: number, now: number, expiresAt: number): Promise<boolean> {
    const result = await this.db.manager
      .createQueryBuilder()
      .update(PartitionLeaseEntity)
      .set({ owner: me, expiresAt })
      .where(`"partition" = :partition`, { partition })
      .andWhere(`("owner" = :me OR "owner" = '' OR "expires_at" <= :now)`, { me, now })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Gives partitions back at once (hand-over, shutdown) instead of letting them expire. */
  async release(me: string, partitions: readonly number[]): Promise<void> {
    if (partitions.length === 0) return;
    await this.db.manager.update(
      PartitionLeaseEntity,
      { owner: me, partition: In([...partitions]) },
      { owner: '', expiresAt: 0 },
    );
  }

  /** A stopping replica leaves: its leases are freed and its membership row removed. */
  async leave(me: string): Promise<void> {
    await this.db.manager.update(PartitionLeaseEntity, { owner: me }, { owner: '', expiresAt: 0 });
    await this.db.manager.delete(CoordinatorMemberEntity, { id: me });
  }

  async forgetDeadMembers(now: number): Promise<void> {
    await this.db.manager.delete(CoordinatorMemberEntity, { lastSeenAt: LessThan(now - FORGET_MEMBERS_AFTER_MS) });
  }

  /**
   * Inside a transaction: whether the lease row of `partition` still names `me` (the fence a
   * status change passes, as its last statement). On PostgreSQL the row stays locked until the
   * commit (FOR SHARE), so no replica can claim the partition between this check and the commit,
   * while status changes of one partition still commit side by side; SQLite transactions are
   * serialised already. Expiry alone does not fail it: a lease that ran out while the database
   * was unreachable, and that nobody took, still means nobody else wrote.
   */
  async holds(m: EntityManager, me: string, partition: number): Promise<boolean> {
    const row = await m.findOne(PartitionLeaseEntity, {
      where: { partition, owner: me },
      ...(this.db.dialect === 'postgres' ? { lock: { mode: 'pessimistic_read' as const } } : {}),
    });
    return row !== null;
  }
}
