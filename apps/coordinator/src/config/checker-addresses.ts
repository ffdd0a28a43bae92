import { isIP } from 'node:net';
import { isRegionId, type RegionId } from '#contracts';

/** CHECKER_ADDRESSES, read: the addresses published per region besides those agents report. */
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
