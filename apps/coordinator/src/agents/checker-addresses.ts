import { isIP } from 'node:net';
import { REGIONS, type RegionId } from '#contracts';
import type { ConfiguredAddresses } from '../config/checker-addresses.js';

/** Addresses of agents heard from within this long are published (an agent that left stays listed a day). */
export const CHECKER_ADDRESS_MAX_AGE_MS = 24 * 3600_000;

export interface RegionAddresses {
  id: RegionId;
  name: string;
  continent: string;
  ipv4: string[];
  ipv6: string[];
}

interface AgentAddresses {
  regions: readonly RegionId[];
  ipv4: readonly string[];
  ipv6: readonly string[];
  lastSeenAt: number;
}

/**
 * The published list (docs/decisions/0009-checker-addresses.md): all fifteen regions in order,
 * each with the addresses of its agents seen within CHECKER_ADDRESS_MAX_AGE_MS plus the configured
 * ones (CHECKER_ADDRESSES), by family, de-duplicated and sorted.
 */
export function checkerAddresses(
  agents: readonly AgentAddresses[],
  configured: ConfiguredAddresses,
  now: number,
): RegionAddresses[] {
  const recent = agents.filter((a) => a.lastSeenAt >= now - CHECKER_ADDRESS_MAX_AGE_MS);
  return REGIONS.map((region) => {
    const all = new Set<string>(configured[region.id] ?? []);
    for (const agent of recent) {
      if (!agent.regions.includes(region.id)) continue;
      for (const address of [...agent.ipv4, ...agent.ipv6]) all.add(address);
    }
    const sorted = [...all].sort();
    return {
      id: region.id,
      name: region.name,
      continent: region.continent,
      ipv4: sorted.filter((a) => isIP(a) === 4),
      ipv6: sorted.filter((a) => isIP(a) === 6),
    };
  });
}

/** `?format=txt`: every address once, one per line, for firewall tools. */
export function checkerAddressesText(regions: readonly RegionAddresses[]): string {
  const all = [...new Set(regions.flatMap((r) => [...r.ipv4, ...r.ipv6]))];
  return all.length === 0 ? '' : `${all.join('\n')}\n`;
}
