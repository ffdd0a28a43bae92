import { isIP } from 'node:net';
import { arrayOf, boolean, type Checker, Field, integer, text } from '#validation';
import { isPrivateRegionId, isRegionId, REGION_IDS, type MonitorRegionId, type RegionId } from './regions.js';

export const DEFAULT_SUBJECT_PREFIX = 'picket';

/** A NATS subject prefix: dot-separated tokens of letters, digits, `_` and `-`. */
export const SUBJECT_PREFIX_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export interface Subjects {
  /** Probe work for one region, as requests; the region's agents share one queue group. */
  probe(region: RegionId): string;
  /**
   * Probe work for an account's private region (docs/decisions/0030-private-regions.md): the
   * account id is part of the subject, so NATS permissions can confine an agent to its region.
   */
  privateProbe(accountId: string, region: string): string;
  /**
   * Batched probe work for one region (docs/decisions/0034-batched-probe-traffic.md): one
   * message carries several checks, the same queue group answers it in several replies. A token
   * below `probe(region)`, so agents whose permissions name `<prefix>.probe.*` only (older
   * credentials) cannot take it and the coordinator falls back to `probe(region)`.
   */
  probeBatch(region: RegionId): string;
  /** A private region's batched probe work (below its `privateProbe` subject). */
  privateProbeBatch(accountId: string, region: string): string;
  /** A private region's agents publish their heartbeats here (never on `heartbeat`). */
  privateHeartbeat(accountId: string, region: string): string;
  /** Every private region's heartbeats (what coordinators subscribe to). */
  privateHeartbeats: string;
  /** Agents publish heartbeats here; coordinators subscribe. */
  heartbeat: string;
  /** Coordinator replicas tell each other of committed monitor changes (create, update, delete). */
  monitorChanged: string;
  /** A replica that took a heartbeat monitor's ping tells the replica that evaluates it. */
  heartbeatPing: string;
  /** Coordinator replicas tell each other of status changes they recorded (live dashboards). */
  statusChanged: string;
  /**
   * A private region's agent exchanges its enrollment token for NATS credentials here (a request;
   * one coordinator answers, docs/decisions/0030-private-regions.md).
   */
  enroll: string;
}

/**
 * NATS vocabulary, defined once. With the default prefix, probe work for region r goes to
 * `picket.probe.<r>`. Another prefix (NATS_SUBJECT_PREFIX on both apps) lets several
 * installations, or parallel test runs, share one NATS cluster.
 */
export function subjectsFor(prefix: string = DEFAULT_SUBJECT_PREFIX): Subjects {
  return {
    probe: (region) => `${prefix}.probe.${region}`,
    privateProbe: (accountId, region) => `${prefix}.private.${accountId}.${region}.probe`,
    probeBatch: (region) => `${prefix}.probe.${region}.batch`,
    privateProbeBatch: (accountId, region) => `${prefix}.private.${accountId}.${region}.probe.batch`,
    privateHeartbeat: (accountId, region) => `${prefix}.private.${accountId}.${region}.heartbeat`,
    privateHeartbeats: `${prefix}.private.*.*.heartbeat`,
    heartbeat: `${prefix}.agents.heartbeat`,
    monitorChanged: `${prefix}.coordinators.monitor-changed`,
    heartbeatPing: `${prefix}.coordinators.heartbeat-ping`,
    statusChanged: `${prefix}.coordinators.status-changed`,
    enroll: `${prefix}.agents.enroll`,
  };
}

export const PROBE_QUEUE_GROUP = 'picket-agents';

/**
 * Where a check of `region` goes: a public region's subject, or the private region's of the
 * monitor's account. Null for a private region without an account (nobody may take it).
 */
export function probeSubjectOf(
  subjects: Subjects,
  request: { region: MonitorRegionId; account_id?: string },
): string | null {
  if (isRegionId(request.region)) return subjects.probe(request.region);
  return request.account_id ? subjects.privateProbe(request.account_id, request.region) : null;
}

/** Where a batch of checks of `region` goes (as probeSubjectOf, for batches). */
export function probeBatchSubjectOf(
  subjects: Subjects,
  request: { region: MonitorRegionId; account_id?: string },
): string | null {
  if (isRegionId(request.region)) return subjects.probeBatch(request.region);
  return request.account_id ? subjects.privateProbeBatch(request.account_id, request.region) : null;
}

/** The account and region of a private heartbeat subject (`<prefix>.private.<account>.<region>.heartbeat`). */
export function privateHeartbeatSource(prefix: string, subject: string): { accountId: string; region: string } | null {
  const head = `${prefix}.private.`;
  if (!subject.startsWith(head) || !subject.endsWith('.heartbeat')) return null;
  const parts = subject.slice(head.length, -'.heartbeat'.length).split('.');
  if (parts.length !== 2) return null;
  const [accountId, region] = parts as [string, string];
  return /^[0-9a-f]{24}$/.test(accountId) && isPrivateRegionId(region) ? { accountId, region } : null;
}

/** What an agent says about itself every few seconds (`R`: the kind of region ids it names). */
export interface AgentHeartbeat<R extends MonitorRegionId = MonitorRegionId> {
  agent_id: string;
  version: string;
  /** Public regions served; a private region's agent names its one private region id. */
  regions: R[];
  /** Public egress addresses (AGENT_PUBLIC_IPS, else the addresses it found). */
  ipv4: string[];
  ipv6: string[];
  in_flight: number;
  max_in_flight: number;
  /** Whether ICMP works (CAP_NET_RAW). */
  icmp: boolean;
  /** ms since the epoch, by the agent's clock. */
  sent_at: number;
}

const ip =
  (family: 4 | 6): Checker =>
  (value) =>
    isIP(String(value)) === family ? null : `must be an IPv${family} address`;

/** The heartbeat of an agent of public regions (what the agents table and checker addresses hold). */
export type PublicAgentHeartbeat = AgentHeartbeat<RegionId>;

/** The heartbeat as an agent of public regions only; null when it names any other region. */
export function asPublicHeartbeat(heartbeat: AgentHeartbeat): PublicAgentHeartbeat | null {
  const regions = heartbeat.regions.filter(isRegionId);
  return regions.length === heartbeat.regions.length ? { ...heartbeat, regions } : null;
}

/** A public region id, or one of the form of a private region id. */
export const anyRegion: Checker = (value) =>
  isRegionId(value) || isPrivateRegionId(value)
    ? null
    : `must be a region id (${REGION_IDS.join(', ')}, or a private one)`;

export class AgentHeartbeatDto implements AgentHeartbeat {
  @Field(text({ max: 64, min: 1 })) agent_id!: string;
  @Field(text({ max: 64, min: 1 })) version!: string;
  @Field(arrayOf(anyRegion, { min: 1, max: REGION_IDS.length, unique: true })) regions!: MonitorRegionId[];
  @Field(arrayOf(ip(4), { max: 64 })) ipv4!: string[];
  @Field(arrayOf(ip(6), { max: 64 })) ipv6!: string[];
  @Field(integer(0, 1_000_000)) in_flight!: number;
  @Field(integer(1, 1_000_000)) max_in_flight!: number;
  @Field(boolean) icmp!: boolean;
  @Field(integer(0, 8.64e15)) sent_at!: number;
}
