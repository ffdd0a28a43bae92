import { avalanche32 } from '#runtime';

/**
 * How coordinator replicas share the monitors (pure: no I/O, no clock). Monitors fall into a
 * fixed number of partitions by a hash of their id; each partition is leased through the
 * database by exactly one replica, which alone schedules and evaluates its monitors. Which
 * replica should own a partition is computed from the live replicas alone, so every replica
 * computes the same answer: balanced shares (every replica within one partition of the others)
 * once every live replica records that it assigns so, rendezvous hashing while any replica of
 * an older version is live (docs/decisions/0041-balanced-partitions.md).
 */

/** Partitions of the monitor space. Fixed: the lease table is seeded with one row each. */
export const PARTITION_COUNT = 64;

/** FNV-1a, 32 bits: stable across processes and versions (a partition's monitors must not move on upgrade). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The partition of a monitor. */
export function partitionOf(monitorId: string): number {
  return fnv1a(monitorId) % PARTITION_COUNT;
}

/**
 * How the live replicas share the partitions: `balanced` (balancedOwners), or `rendezvous`
 * (desiredOwner), the only way of replicas before balanced shares. Each replica records the
 * one it follows with its membership; '' for replicas from before this was recorded.
 */
export type Assignment = 'rendezvous' | 'balanced';

/** What this version records with its membership. */
export const ASSIGNMENT: Assignment = 'balanced';

/** A live replica as the assignment needs it. */
export interface Member {
  readonly id: string;
  /** The Assignment it records ('' before they were recorded: rendezvous). */
  readonly assignment: string;
}

/**
 * The assignment every live replica follows: balanced once each of them records it, so that a
 * cluster in the middle of an upgrade (older replicas still live) keeps the one plan its older
 * replicas compute too and no partition is left without an owner.
 */
export function assignmentOf(members: readonly Member[]): Assignment {
  return members.every((m) => m.assignment === 'balanced') ? 'balanced' : 'rendezvous';
}

/**
 * The owner of each partition (index: partition) under `assignment`, or null for all when no
 * replica is live.
 */
export function desiredOwners(live: readonly string[], assignment: Assignment): (string | null)[] {
  if (assignment === 'balanced') return balancedOwners(live);
  return Array.from({ length: PARTITION_COUNT }, (_, p) => desiredOwner(p, live));
}

/**
 * Balanced shares: every replica owns ⌊P/N⌋ or ⌈P/N⌉ partitions. Every (partition, replica)
 * pair gets a well-mixed score; pairs are taken from the highest score down, each partition
 * going to the first replica that still has room. Like rendezvous hashing, the answer depends
 * only on the set of live replicas, and a partition stays where it is unless room runs out.
 */
function balancedOwners(live: readonly string[]): (string | null)[] {
  const replicas = [...new Set(live)].sort();
  const owners = new Array<string | null>(PARTITION_COUNT).fill(null);
  if (replicas.length === 0) return owners;
  const pairs: { partition: number; replica: string; score: number }[] = [];
  for (let partition = 0; partition < PARTITION_COUNT; partition++) {
    for (const replica of replicas)
      pairs.push({ partition, replica, score: avalanche32(fnv1a(`${partition}:${replica}`)) });
  }
  pairs.sort(
    (a, b) => b.score - a.score || (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : a.partition - b.partition),
  );
  const base = Math.floor(PARTITION_COUNT / replicas.length);
  // Replicas that may own one more than `base`, first come first served.
  let larger = PARTITION_COUNT % replicas.length;
  const load = new Map<string, number>();
  for (const { partition, replica } of pairs) {
    if (owners[partition] !== null) continue;
    const held = load.get(replica) ?? 0;
    if (held === base && larger > 0) larger--;
    else if (held >= base) continue;
    owners[partition] = replica;
    load.set(replica, held + 1);
  }
  return owners;
}

/** Rendezvous hashing: the live replica with the highest score for this partition (ties by id). */
export function desiredOwner(partition: number, live: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const replica of live) {
    const score = fnv1a(`${partition}:${replica}`);
    if (score > bestScore || (score === bestScore && best !== null && replica < best)) {
      best = replica;
      bestScore = score;
    }
  }
  return best;
}

export interface LeaseRow {
  readonly partition: number;
  /** Replica id, or '' when nobody holds it. */
  readonly owner: string;
  /** Unix ms after which the lease is free to take. */
  readonly expiresAt: number;
}

export interface LeasePlan {
  /** Partitions to take now (free or expired, and ours by rendezvous). */
  readonly claim: number[];
  /** Partitions we hold that a live replica should own instead (hand-over after a join). */
  readonly release: number[];
}

/**
 * What replica `me` should do with the leases, given the live replicas (those whose
 * membership heartbeat is fresh; `me` counts even if its own row is not visible yet, following
 * this version's ASSIGNMENT). A partition another replica holds is never taken before its lease
 * expires: its holder either releases it (it saw the same membership) or dies and lets it expire.
 */
export function planLeases(me: string, live: readonly Member[], leases: readonly LeaseRow[], now: number): LeasePlan {
  const members = live.some((m) => m.id === me) ? [...live] : [...live, { id: me, assignment: ASSIGNMENT }];
  const owners = desiredOwners(
    members.map((m) => m.id),
    assignmentOf(members),
  );
  const claim: number[] = [];
  const release: number[] = [];
  for (const lease of leases) {
    const ours = owners[lease.partition] === me;
    if (lease.owner === me) {
      if (!ours) release.push(lease.partition);
    } else if (ours && (lease.owner === '' || lease.expiresAt <= now)) {
      claim.push(lease.partition);
    }
  }
  return { claim, release };
}

/** How a replica runs checks: in its own process, or through regional agents over NATS under a subject prefix. */
export interface ReplicaMode {
  readonly mode: 'embedded' | 'nats';
  /** '' in embedded mode. */
  readonly subjectPrefix: string;
}

export interface MemberMode {
  readonly id: string;
  /** '' for a replica from before modes were recorded: not compared. */
  readonly mode: string;
  readonly subjectPrefix: string;
  /** Unix ms. */
  readonly lastSeenAt: number;
}

const describeMode = (m: { mode: string; subjectPrefix: string }) =>
  m.mode === 'nats' ? `NATS mode (subject prefix ${m.subjectPrefix})` : 'embedded mode (no NATS_URL)';

/**
 * Why replica `me` (running as `mine`) must not join the live `others` on its database, or null
 * when it may: every replica of one cluster runs checks the same way. A replica started by
 * mistake without NATS_URL beside NATS replicas would check its share of the monitors
 * in-process, from the wrong place, and send false down/up pairs.
 */
export function modeConflict(me: string, mine: ReplicaMode, others: readonly MemberMode[], now: number): string | null {
  const other = others.find(
    (o) => o.id !== me && o.mode !== '' && (o.mode !== mine.mode || o.subjectPrefix !== mine.subjectPrefix),
  );
  if (!other) return null;
  const fix =
    other.mode === 'nats'
      ? `set NATS_URL to the running replicas' NATS servers and NATS_SUBJECT_PREFIX=${other.subjectPrefix}`
      : 'unset NATS_URL, as on the running replicas';
  return (
    `refusing to start: coordinator ${other.id} (seen ${Math.max(0, Math.round((now - other.lastSeenAt) / 1000))} s ago) ` +
    `runs on this database in ${describeMode(other)}, but this one (${me}) would run in ${describeMode(mine)}. ` +
    `Every replica of a cluster must run checks the same way: ${fix}, or point DATABASE_URL at another database.`
  );
}
