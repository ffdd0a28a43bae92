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

/** A one-time enrollment token as POST /api/regions/{id}/agent_tokens answers it (shown this once). */
export interface AgentToken {
  token: string;
  account_id: string;
  region: string;
  created_at: number;
  expires_at: number;
}

/** An agent enrolled in a private region (GET /api/regions/{id}/agents); revoked ones are not listed. */
export interface EnrolledAgent {
  id: string;
  name: string;
  public_key: string;
  enrolled_at: number;
  online: boolean;
}

/** A private region's enrolled agents, under the regions' key (a change to the regions refreshes them too). */
export const useRegionAgents = (regionId: string) =>
  useQuery({
    queryKey: ['regions', regionId, 'agents'],
    queryFn: async () =>
      (await api.get<{ data: { agents: EnrolledAgent[] } }>(`/api/regions/${regionId}/agents`)).data.agents,
    refetchInterval: 30_000,
  });

/** The NATS address in the start command: the operator's own replaces it. */
export const NATS_URL_PLACEHOLDER = 'tls://nats.example.com:4222';
/** Where the command's agent writes the NATS credentials it gets for the token (and reads them on later starts). */
export const AGENT_CREDS_FILE = '/var/lib/picket-agent/nats.creds';

/** `value` as one POSIX shell word: as it is when nothing in it is special, else single-quoted. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+,=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that starts an agent of a private region with an enrollment token
 * (docs/operations.md "Private regions"): on its first start the agent exchanges the token for
 * NATS credentials of its own, written to NATS_CREDS_FILE; later starts use that file and ignore
 * the token. The NATS address is a placeholder for the operator to replace.
 */
export function agentCommand({
  token,
  account_id,
  region,
}: Pick<AgentToken, 'token' | 'account_id' | 'region'>): string {
  return [
    `NATS_URL=${NATS_URL_PLACEHOLDER} \\`,
    `  AGENT_PRIVATE_REGION=${shellWord(`${account_id}/${region}`)} \\`,
    `  AGENT_ENROLL_TOKEN=${shellWord(token)} \\`,
    `  NATS_CREDS_FILE=${AGENT_CREDS_FILE} \\`,
    '  npm run agent',
  ].join('\n');
}
