/**
 * How coordinator replicas share the monitors (pure: no I/O, no clock). Monitors fall into a
 * fixed number of partitions by a hash of their id; each partition is leased through the
 * database by exactly one replica, which alone schedules and evaluates its monitors. Which
 * replica should own a partition is decided by rendezvous hashing over the live replicas, so
 * every replica computes the same answer and a change of membership moves only the
 * partitions of the replica that came or went.
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
 * membership heartbeat is fresh; `me` counts even if its own row is not visible yet). A
 * partition another replica holds is never taken before its lease expires: its holder either
 * releases it (it saw the same membership) or dies and lets it expire.
 */
export function planLeases(me: string, live: readonly string[], leases: readonly LeaseRow[], now: number): LeasePlan {
  const members = live.includes(me) ? [...live] : [...live, me];
  const claim: number[] = [];
  const release: number[] = [];
  for (const lease of leases) {
    const ours = desiredOwner(lease.partition, members) === me;
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
