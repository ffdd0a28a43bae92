import type { RegionId } from '#contracts';

/**
 * Which regions monitors need but no live agent serves (pure). The caller feeds it, every few
 * seconds, how many scheduled monitors use each region and how many live agents serve each;
 * it answers what changed since the last call, so the operator is told once per region and
 * change, not at every check (docs/decisions/0001-truth-when-blind.md).
 */
export interface RegionChange {
  readonly region: RegionId;
  /** true: the region just went blind (monitors need it, no agent); false: it has agents again or is no longer needed. */
  readonly blind: boolean;
  /** Monitors scheduled here that use the region. */
  readonly monitors: number;
  readonly agents: number;
}

export class RegionWatch {
  private readonly blind = new Set<RegionId>();

  /** Regions blind now. */
  get blindRegions(): RegionId[] {
    return [...this.blind].sort();
  }

  update(needed: ReadonlyMap<RegionId, number>, agents: Readonly<Partial<Record<RegionId, number>>>): RegionChange[] {
    const changes: RegionChange[] = [];
    for (const [region, monitors] of needed) {
      const live = agents[region] ?? 0;
      if (monitors > 0 && live === 0 && !this.blind.has(region)) {
        this.blind.add(region);
        changes.push({ region, blind: true, monitors, agents: 0 });
      }
    }
    for (const region of [...this.blind]) {
      const monitors = needed.get(region) ?? 0;
      const live = agents[region] ?? 0;
      if (monitors === 0 || live > 0) {
        this.blind.delete(region);
        changes.push({ region, blind: false, monitors, agents: live });
      }
    }
    return changes;
  }
}

/** The log line for a change. */
export function describeRegionChange(change: RegionChange): string {
  return change.blind
    ? `region ${change.region} has no live agent but ${change.monitors} monitors need it: ` +
        `their checks there are UNKNOWN (start an agent with AGENT_REGIONS=${change.region})`
    : change.monitors === 0
      ? `region ${change.region} is no longer needed by any monitor`
      : `region ${change.region} has ${change.agents} live agents again (${change.monitors} monitors need it)`;
}
