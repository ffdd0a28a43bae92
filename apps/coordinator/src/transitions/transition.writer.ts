import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RegionId } from '#contracts';
import { CLOCK, newObjectId, Semaphore, type Clock } from '#runtime';
import { POSTGRES_POOL_SIZE } from '../database/data-source.js';
import { Database } from '../database/database.js';
import { IncidentEntity, type RegionEvidence } from '../incidents/incident.entity.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { recordStatus, type StatusRecorded } from '../monitors/monitors.repository.js';
import { OutboxService } from '../notify/outbox.service.js';

export interface TransitionInput {
  monitorId: string;
  status: 'up' | 'down';
  /** Unix seconds. */
  changedAt: number;
  /** The deciding result's error when down (becomes the incident's reason). */
  reason: string | null;
  /** The latest result per region: the incident's evidence and the message's region list. */
  evidence: Partial<Record<RegionId, RegionEvidence>>;
  /**
   * Checked inside the transaction, as its last statement: whether the writer still holds the
   * monitor's partition lease. When it does not, nothing is written (the change rolls back).
   */
  fence?: (m: EntityManager) => Promise<boolean>;
}

/** A status change refused because the replica no longer leases the monitor's partition. */
export class LeaseLostError extends Error {
  constructor(monitorId: string) {
    super(`this coordinator no longer holds the partition of monitor ${monitorId}`);
    this.name = 'LeaseLostError';
  }
}

/**
 * Status changes written at once, at most: under a burst of them (a first import of many
 * monitors, a wide outage) the others wait here rather than in the connection pool, so the
 * API, the lease renewals and the results batches keep connections (docs/decisions/0039-postgresql-under-a-burst-of-status-changes.md).
 */
export const TRANSITION_WRITES_AT_ONCE = Math.max(1, Math.floor(POSTGRES_POOL_SIZE * 0.4));

/**
 * Where a monitor's status changes are written: the monitor's `last_status`, the incident it
 * opens or resolves, and one outbox row per contact to tell commit in ONE transaction; the
 * dispatcher sends later, so a crash between the two loses nothing. Nothing else writes
 * `last_status` after a monitor's creation.
 */
@Injectable()
export class TransitionWriter {
  private readonly slots = new Semaphore(TRANSITION_WRITES_AT_ONCE);

  constructor(
    private readonly db: Database,
    private readonly outbox: OutboxService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Records a monitor's new status. `down` of an active monitor opens an incident (unless one
   * is open) and plans the outage's `monitor.down`s by its notification rules (delay,
   * escalation: OutboxService.planOutage); `up` resolves the open incident, cancels what was
   * planned and not yet due, and, for an active monitor, queues `monitor.up` for the active
   * contacts that were told and want it. Paused monitors get their status recorded and
   * incidents resolved, but notify nobody (docs/decisions/0029-notification-rules.md).
   */
  async write(input: TransitionInput): Promise<void> {
    const queued = await this.slots.run(() => this.db.transaction((m) => this.writeIn(m, input)));
    if (queued > 0) this.outbox.written();
  }

  /** Status changes waiting for a place among TRANSITION_WRITES_AT_ONCE. */
  get waiting(): number {
    return this.slots.queued;
  }

  private async writeIn(m: EntityManager, input: TransitionInput): Promise<number> {
    // The status is written first, in the statement that reads the monitor: its row lock
    // serialises status changes of one monitor across replicas (PostgreSQL; SQLite
    // transactions are serialised already).
    const recorded = await recordStatus(this.db, m, input.monitorId, input.status, input.changedAt);
    if (!recorded) return 0;
    const planned = await this.apply(m, recorded, input);
    // The fence is the last statement before the commit: it locks the partition's lease row
    // until then, so the lease is held from the check to the commit, while the renewal of
    // this replica's leases waits one statement at most (not the whole change). Failing it
    // rolls back everything above.
    if (input.fence && !(await input.fence(m))) throw new LeaseLostError(input.monitorId);
    return planned;
  }

  /** The change itself, inside write's transaction: messages planned in the outbox, counted. */
  private async apply(
    m: EntityManager,
    { monitor, openIncidentId }: StatusRecorded,
    input: TransitionInput,
  ): Promise<number> {
    if (input.status === 'down') {
      if (!monitor.active || openIncidentId !== null) return 0;
      const incident = await this.openIncident(m, monitor, input);
      return this.outbox.planOutage(m, monitor, {
        status: 'down',
        error: incident.reason,
        incident,
        startedAt: incident.startedAt,
        durationSeconds: null,
        severity: 'critical',
        timestamp: input.changedAt,
        evidence: input.evidence,
      });
    }
    // Read whole only when there is one to resolve.
    const open = openIncidentId === null ? null : await m.findOneBy(IncidentEntity, { id: openIncidentId });
    if (!open) return 0;
    await m.update(IncidentEntity, { id: open.id }, { resolvedAt: input.changedAt, updatedAt: input.changedAt });
    // The outage's unsent planned messages are cancelled even for a paused monitor.
    const facts = {
      status: 'up' as const,
      error: null,
      incident: open,
      startedAt: open.startedAt,
      durationSeconds: Math.max(0, input.changedAt - open.startedAt),
      severity: 'critical' as const,
      timestamp: input.changedAt,
      evidence: input.evidence,
    };
    return this.outbox.planRecovery(m, monitor, facts, monitor.active);
  }

  private async openIncident(
    m: EntityManager,
    monitor: MonitorEntity,
    input: TransitionInput,
  ): Promise<IncidentEntity> {
    const incident = Object.assign(new IncidentEntity(), {
      id: newObjectId(this.clock.now()),
      accountId: monitor.accountId,
      monitorId: monitor.id,
      monitorName: monitor.name,
      startedAt: input.changedAt,
      resolvedAt: null,
      reason: input.reason ?? 'Down',
      userComment: '',
      checkResults: input.evidence,
      createdAt: input.changedAt,
      updatedAt: input.changedAt,
    });
    await m.insert(IncidentEntity, incident);
    return incident;
  }
}
