import { Injectable } from '@nestjs/common';
import type { ProbeResult, ResultRegion } from '#contracts';
import { Interner } from '#runtime';
import type { RegionEvidence } from '../incidents/incident.entity.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { ResultColumns, type ResultRow } from './result-columns.js';

/**
 * The latest result per region of every monitor checked here: what a status change shows as
 * its evidence (the incident's check_results, the notification's region list). Forgotten when
 * the monitor leaves the roster. Only the fields an incident keeps are held, in columns (one
 * block of rows per monitor, sized by its regions, in the order they first answered): at
 * 100,000 monitors of 2 regions, an array and an object per region cost 21 MB of heap
 * (docs/decisions/0046-exact-arrays-and-fewer-sets-per-monitor.md).
 */
@Injectable()
export class Evidence {
  /** Monitor id → the first row of its block. */
  private readonly blocks = new Map<string, number>();
  private readonly columns = new ResultColumns();
  /** The few distinct regions and checker addresses, each held once rather than once per monitor. */
  private readonly strings = new Interner(MAX_INTERNED);

  constructor(private readonly roster: MonitorRoster) {
    roster.onChange((change) => {
      if (change.kind === 'untracked') this.forget(change.monitorId);
    });
  }

  record(result: ProbeResult): void {
    const region = this.strings.intern(result.region);
    const kept: ResultRow = {
      region,
      status: result.status,
      responseTimeMs: result.response_time_ms,
      error: result.error,
      checkedAt: Math.floor(result.started_at / 1000),
      checkerIp: result.checker_ip === null ? null : this.strings.intern(result.checker_ip),
    };
    let start = this.blocks.get(result.monitor_id);
    if (start === undefined) {
      start = this.columns.allocate(Math.max(1, this.roster.get(result.monitor_id)?.regions.length ?? 1));
      this.blocks.set(result.monitor_id, start);
    }
    let row = this.columns.find(start, region);
    if (row === -1) row = this.columns.firstFree(start);
    if (row === -1) {
      // A region beyond those the block was sized for (the monitor's regions changed): one row more.
      start = this.columns.lengthen(start);
      this.blocks.set(result.monitor_id, start);
      row = this.columns.firstFree(start);
    }
    this.columns.write(row, kept);
  }

  /** The error of the monitor's latest result from `region` (a down incident's reason). */
  errorOf(monitorId: string, region: ResultRegion): string | null {
    const start = this.blocks.get(monitorId);
    if (start === undefined) return null;
    const row = this.columns.find(start, region);
    return row === -1 ? null : (this.columns.read(row)?.error ?? null);
  }

  /** The monitor's latest result per region, as an incident stores it. */
  of(monitorId: string): Partial<Record<ResultRegion, RegionEvidence>> {
    const start = this.blocks.get(monitorId);
    if (start === undefined) return {};
    return Object.fromEntries(
      this.columns.readBlock(start).map((r) => [
        r.region,
        {
          status: r.status,
          response_time_ms: r.responseTimeMs,
          error: r.error,
          checked_at: r.checkedAt,
          checker_ip: r.checkerIp,
        },
      ]),
    );
  }

  private forget(monitorId: string): void {
    const start = this.blocks.get(monitorId);
    if (start === undefined) return;
    this.blocks.delete(monitorId);
    this.columns.release(start);
  }
}

/** Distinct regions and checker addresses held once (public and private regions, agents' addresses). */
const MAX_INTERNED = 1_000;
