import { isIP } from 'node:net';
import { REGIONS, isRegionId, type RegionId } from '#contracts';

/** Addresses of agents heard from within this long are published (an agent that left stays listed a day). */
export const CHECKER_ADDRESS_MAX_AGE_MS = 24 * 3600_000;

export interface RegionAddresses {
  id: RegionId;
  name: string;
  continent: string;
  ipv4: string[];
  ipv6: string[];
}

export type ConfiguredAddresses = Partial<Record<RegionId, string[]>>;

/**
 * Parses CHECKER_ADDRESSES: `region=addr,addr;region=addr` (IPv4 or IPv6). Returns the map,
 * or a problem in words.
 */
export function parseCheckerAddresses(text: string): ConfiguredAddresses | string {
  const result: ConfiguredAddresses = {};
  for (const part of text.split(';').map((p) => p.trim())) {
    if (part === '') continue;
    const [region, list, extra] = part.split('=').map((p) => p.trim());
    if (extra !== undefined || !list) return `"${part}" is not region=address,address`;
    if (!isRegionId(region)) return `"${region ?? ''}" is not a region`;
    const addresses = list.split(',').map((a) => a.trim());
    const bad = addresses.find((a) => isIP(a) === 0);
    if (bad !== undefined) return `"${bad}" is not an IP address`;
    result[region] = [...(result[region] ?? []), ...addresses];
  }
  return result;
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
 * ones, by family, de-duplicated and sorted.
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
