import { Injectable } from '@nestjs/common';
import type { ProbeResult, ResultRegion } from '#contracts';
import { Interner } from '#runtime';
import type { RegionEvidence } from '../incidents/incident.entity.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';

/** A region's latest result, as much of it as an incident keeps (RegionEvidence). */
interface Latest extends RegionEvidence {
  readonly region: ResultRegion;
}

/**
 * The latest result per region of every monitor checked here: what a status change shows as
 * its evidence (the incident's check_results, the notification's region list). Forgotten when
 * the monitor leaves the roster. Only the fields an incident keeps are held, in a short array per
 * monitor (its regions in the order they first answered): at 100,000 monitors a Map and the whole
 * result per region cost about 100 MB of heap (docs/decisions/0035-monitor-counts-and-page-from-either-end.md).
 */
@Injectable()
export class Evidence {
  private readonly latest = new Map<string, Latest[]>();
  /** The few distinct regions and checker addresses, each held once rather than once per monitor. */
  private readonly strings = new Interner(MAX_INTERNED);

  constructor(roster: MonitorRoster) {
    roster.onChange((change) => {
      if (change.kind === 'untracked') this.latest.delete(change.monitorId);
    });
  }

  record(result: ProbeResult): void {
    const kept: Latest = {
      region: this.strings.intern(result.region),
      status: result.status,
      response_time_ms: result.response_time_ms,
      error: result.error,
      checked_at: Math.floor(result.started_at / 1000),
      checker_ip: result.checker_ip === null ? null : this.strings.intern(result.checker_ip),
    };
    const regions = this.latest.get(result.monitor_id);
    if (!regions) {
      this.latest.set(result.monitor_id, [kept]);
      return;
    }
    const at = regions.findIndex((r) => r.region === kept.region);
    // A new array of the exact length by concat(): push() and spread ([...regions, kept]) both
    // grow the array to room for 17 more; at 100,000 monitors of 2 regions the spread's slack
    // was 13.6 MB of a 167 MB heap (docs/decisions/0046-exact-arrays-and-fewer-sets-per-monitor.md).
    if (at === -1) this.latest.set(result.monitor_id, regions.concat([kept]));
    else regions[at] = kept;
  }

  /** The error of the monitor's latest result from `region` (a down incident's reason). */
  errorOf(monitorId: string, region: ResultRegion): string | null {
    return this.latest.get(monitorId)?.find((r) => r.region === region)?.error ?? null;
  }

  /** The monitor's latest result per region, as an incident stores it. */
  of(monitorId: string): Partial<Record<ResultRegion, RegionEvidence>> {
    const regions = this.latest.get(monitorId) ?? [];
    return Object.fromEntries(
      regions.map((r) => [
        r.region,
        {
          status: r.status,
          response_time_ms: r.response_time_ms,
          error: r.error,
          checked_at: r.checked_at,
          checker_ip: r.checker_ip,
        },
      ]),
    );
  }
}

/** Distinct regions and checker addresses held once (public and private regions, agents' addresses). */
const MAX_INTERNED = 1_000;
