import { useQuery } from '@tanstack/react-query';
import { REGION_IDS } from '../../../../libs/contracts/src/regions.ts';
import { api } from './api.ts';

export interface PublicRegion {
  id: string;
  name: string;
  continent: string;
  type: 'public';
}

export interface PrivateRegion {
  id: string;
  name: string;
  type: 'private';
  agents_online: number;
  created_at: number;
}

export type Region = PublicRegion | PrivateRegion;

/** Every region the account may list in a monitor (GET /api/regions): the public ones, then its private ones. */
export const useRegions = () =>
  useQuery({
    queryKey: ['regions'],
    queryFn: async () => (await api.get<{ data: { regions: Region[] } }>('/api/regions')).data.regions,
    refetchInterval: 30_000,
  });

export interface RegionChoice {
  id: string;
  /** What the picker shows: the id, and for a private region its name. */
  label: string;
  private: boolean;
}

/**
 * The regions a monitor form offers: the public ones (the built-in list until the API answers),
 * then the account's private ones, then any id the monitor lists that neither holds (a region
 * deleted meanwhile is shown, so unticking it is possible and the API's 422 has a place).
 */
export function regionChoices(regions: readonly Region[] | undefined, selected: readonly string[]): RegionChoice[] {
  const known: RegionChoice[] = (regions ?? REGION_IDS.map((id) => ({ id, type: 'public' as const, name: id }))).map(
    (r) =>
      r.type === 'private'
        ? { id: r.id, label: `${r.id} (private: ${r.name})`, private: true }
        : { id: r.id, label: r.id, private: false },
  );
  const ids = new Set(known.map((c) => c.id));
  const unknown = selected.filter((id) => !ids.has(id)).map((id) => ({ id, label: id, private: false }));
  return [...known, ...unknown];
}

/** A monitor's regions as the detail page shows them: a private one with its name and agents online. */
export function describeRegions(ids: readonly string[], regions: readonly Region[] | undefined): string {
  const byId = new Map((regions ?? []).map((r) => [r.id, r]));
  return ids
    .map((id) => {
      const r = byId.get(id);
      if (r?.type !== 'private') return id;
      const agents = r.agents_online === 1 ? '1 agent online' : `${r.agents_online} agents online`;
      return `${id} (private: ${r.name}, ${agents})`;
    })
    .join(', ');
}

/**
 * How to start an agent for a private region today (docs/operations.md "Private regions"): the
 * NATS URL, the region's own NATS user (added to picket-auth.conf by the operator: enrollment
 * tokens are not built yet) and the region's full name. nats.example.com and the password's
 * variable are for the operator to replace.
 */
export function agentCommand(accountId: string, regionId: string): string {
  const secret = `PICKET_NATS_${regionId.toUpperCase().replace(/-/g, '_')}_PASSWORD`;
  return [
    'NATS_URL=tls://nats.example.com:4222 NATS_CA_FILE=/etc/picket/ca.pem \\',
    `  NATS_USER=${regionId} NATS_PASSWORD="$${secret}" \\`,
    `  AGENT_PRIVATE_REGION=${accountId}/${regionId} AGENT_ID=${regionId}-1 npm run agent`,
  ].join('\n');
}
