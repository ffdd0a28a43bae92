import { isIP } from 'node:net';
import { arrayOf, boolean, type Checker, Field, integer, oneOf, text } from '#validation';
import { REGION_IDS, type RegionId } from './regions.js';

export const DEFAULT_SUBJECT_PREFIX = 'picket';

/** A NATS subject prefix: dot-separated tokens of letters, digits, `_` and `-`. */
export const SUBJECT_PREFIX_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export interface Subjects {
  /** Probe work for one region, as requests; the region's agents share one queue group. */
  probe(region: RegionId): string;
  /** Agents publish heartbeats here; coordinators subscribe. */
  heartbeat: string;
  /** Coordinator replicas tell each other of committed monitor changes (create, update, delete). */
  monitorChanged: string;
  /** A replica that took a heartbeat monitor's ping tells the replica that evaluates it. */
  heartbeatPing: string;
  /** Coordinator replicas tell each other of status changes they recorded (live dashboards). */
  statusChanged: string;
}

/**
 * NATS vocabulary, defined once. With the default prefix, probe work for region r goes to
 * `picket.probe.<r>`. Another prefix (NATS_SUBJECT_PREFIX on both apps) lets several
 * installations, or parallel test runs, share one NATS cluster.
 */
export function subjectsFor(prefix: string = DEFAULT_SUBJECT_PREFIX): Subjects {
  return {
    probe: (region) => `${prefix}.probe.${region}`,
    heartbeat: `${prefix}.agents.heartbeat`,
    monitorChanged: `${prefix}.coordinators.monitor-changed`,
    heartbeatPing: `${prefix}.coordinators.heartbeat-ping`,
    statusChanged: `${prefix}.coordinators.status-changed`,
  };
}

export const PROBE_QUEUE_GROUP = 'picket-agents';

/** What an agent says about itself every few seconds. */
export interface AgentHeartbeat {
  agent_id: string;
  version: string;
  regions: RegionId[];
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

export class AgentHeartbeatDto implements AgentHeartbeat {
  @Field(text({ max: 64, min: 1 })) agent_id!: string;
  @Field(text({ max: 64, min: 1 })) version!: string;
  @Field(arrayOf(oneOf(REGION_IDS), { min: 1, max: REGION_IDS.length, unique: true })) regions!: RegionId[];
  @Field(arrayOf(ip(4), { max: 64 })) ipv4!: string[];
  @Field(arrayOf(ip(6), { max: 64 })) ipv6!: string[];
  @Field(integer(0, 1_000_000)) in_flight!: number;
  @Field(integer(1, 1_000_000)) max_in_flight!: number;
  @Field(boolean) icmp!: boolean;
  @Field(integer(0, 8.64e15)) sent_at!: number;
}
