import { describe, expect, it } from '@jest/globals';
import {
  ASSIGNMENT,
  assignmentOf,
  desiredOwner,
  desiredOwners,
  modeConflict,
  PARTITION_COUNT,
  partitionOf,
  planLeases,
  type LeaseRow,
  type Member,
  type MemberMode,
  type ReplicaMode,
} from './partitions.js';

const ALL = Array.from({ length: PARTITION_COUNT }, (_, p) => p);
const NOW = 1_000_000;

function ownersOf(live: string[]): Map<number, string | null> {
  return new Map(ALL.map((p) => [p, desiredOwner(p, live)]));
}

describe('partitionOf', () => {
  it('is stable, in range and spreads ids evenly', () => {
    const counts = new Array<number>(PARTITION_COUNT).fill(0);
    for (let i = 0; i < 64_000; i++) {
      const p = partitionOf(`6650a1b2c3d4e5f6a7b8${i.toString(16).padStart(4, '0')}`);
      counts[p] = (counts[p] ?? 0) + 1;
    }
    // Every partition was hit, and nothing landed outside the range.
    expect(counts).toHaveLength(PARTITION_COUNT);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(64_000);
    // 1000 expected per partition; a fair hash stays well inside ±25 %.
    expect(Math.min(...counts)).toBeGreaterThan(750);
    expect(Math.max(...counts)).toBeLessThan(1250);
    expect(partitionOf('6650a1b2c3d4e5f6a7b8c9d0')).toBe(partitionOf('6650a1b2c3d4e5f6a7b8c9d0'));
  });
});

describe('desiredOwner', () => {
  it('has no owner without live replicas', () => {
    expect(desiredOwner(3, [])).toBeNull();
  });

  it('does not depend on the order replicas are listed in', () => {
    expect(ownersOf(['a', 'b', 'c'])).toEqual(ownersOf(['c', 'a', 'b']));
  });

  it('gives every replica a share', () => {
    const shares = new Map<string, number>();
    for (const owner of ownersOf(['r1', 'r2', 'r3']).values())
      shares.set(owner ?? '', (shares.get(owner ?? '') ?? 0) + 1);
    expect([...shares.keys()].sort()).toEqual(['r1', 'r2', 'r3']);
    for (const share of shares.values()) expect(share).toBeGreaterThan(8);
  });

  it('moves only the departed replica’s partitions when one leaves', () => {
    const before = ownersOf(['r1', 'r2', 'r3']);
    const after = ownersOf(['r1', 'r3']);
    for (const p of ALL) {
      if (before.get(p) !== 'r2') expect(after.get(p)).toBe(before.get(p));
      else expect(['r1', 'r3']).toContain(after.get(p));
    }
  });

  it('moves partitions only to a replica that joins', () => {
    const before = ownersOf(['r1', 'r2']);
    const after = ownersOf(['r1', 'r2', 'r3']);
    for (const p of ALL) if (after.get(p) !== 'r3') expect(after.get(p)).toBe(before.get(p));
  });
});

/** Partitions per replica. */
function shares(owners: readonly (string | null)[]): Map<string | null, number> {
  const counted = new Map<string | null, number>();
  for (const owner of owners) counted.set(owner, (counted.get(owner) ?? 0) + 1);
  return counted;
}

/** Replica ids as deployments name them: numbered pods, host names, random ids. */
const NAMINGS: [string, (i: number) => string][] = [
  ['numbered', (i) => `bench-replica-${i}`],
  ['stateful set', (i) => `picket-coordinator-${i}`],
  ['host names', (i) => `host-${i + 1}.example.internal`],
  ['random ids', (i) => (((i + 1) * 2654435761) >>> 0).toString(16)],
];

describe('balanced shares', () => {
  it('rendezvous alone gives unequal shares: three numbered replicas get 34, 15 and 15 partitions', () => {
    // Why balanced shares exist (docs/decisions/0041-balanced-partitions.md).
    const ids = ['bench-replica-0', 'bench-replica-1', 'bench-replica-2'];
    expect([...shares(desiredOwners(ids, 'rendezvous')).values()].sort((a, b) => b - a)).toEqual([34, 15, 15]);
    expect([...shares(desiredOwners(ids, 'balanced')).values()].sort((a, b) => b - a)).toEqual([22, 21, 21]);
  });

  describe.each(NAMINGS)('replicas named as %s', (_naming, name) => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => name(i));

    it.each([1, 2, 3, 4, 5, 6, 7, 8, 10, 16, 64, 100])('%i replicas: every partition owned, shares within one', (n) => {
      const owners = desiredOwners(ids(n), 'balanced');
      expect(owners).toHaveLength(PARTITION_COUNT);
      const counted = shares(owners);
      expect(counted.has(null)).toBe(false);
      const sizes = ids(n).map((id) => counted.get(id) ?? 0);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(PARTITION_COUNT);
    });

    it('the same answer whatever the order the replicas are listed in', () => {
      expect(desiredOwners(ids(5).reverse(), 'balanced')).toEqual(desiredOwners(ids(5), 'balanced'));
    });

    it('a replica that joins takes its share; few others move (at most as many again)', () => {
      for (let n = 1; n < 10; n++) {
        const before = desiredOwners(ids(n), 'balanced');
        const after = desiredOwners(ids(n + 1), 'balanced');
        const moved = ALL.filter((p) => before[p] !== after[p]).length;
        expect(after.filter((owner) => owner === name(n)).length).toBe(shares(after).get(name(n)));
        expect(moved).toBeLessThanOrEqual(2 * Math.ceil(PARTITION_COUNT / (n + 1)));
      }
    });
  });

  it.each<[string, Member[], string]>([
    ['every live replica balanced', [m('a', 'balanced'), m('b', 'balanced')], 'balanced'],
    ['a replica from before assignments were recorded', [m('a', 'balanced'), m('old', '')], 'rendezvous'],
    ['a replica that records rendezvous', [m('a', 'balanced'), m('b', 'rendezvous')], 'rendezvous'],
  ])('assignmentOf: %s', (_name, members, expected) => {
    expect(assignmentOf(members)).toBe(expected);
  });

  it('this version records balanced shares', () => {
    expect(ASSIGNMENT).toBe('balanced');
  });
});

function m(id: string, assignment: string): Member {
  return { id, assignment };
}

describe('planLeases', () => {
  const live = [m('r1', ASSIGNMENT), m('r2', ASSIGNMENT)];
  const owners = desiredOwners(['r1', 'r2'], ASSIGNMENT);
  const mine = ALL.filter((p) => owners[p] === 'r1');
  const theirs = ALL.filter((p) => owners[p] === 'r2');
  const p1 = mine[0] ?? -1;
  const p2 = theirs[0] ?? -1;
  const lease = (partition: number, owner: string, expiresAt: number): LeaseRow => ({ partition, owner, expiresAt });

  it.each([
    ['a free partition of mine is claimed', [lease(p1, '', 0)], { claim: [p1], release: [] }],
    [
      'an expired lease of a dead replica on my partition is claimed',
      [lease(p1, 'dead', NOW - 1)],
      { claim: [p1], release: [] },
    ],
    ['a lease expiring exactly now is free', [lease(p1, 'dead', NOW)], { claim: [p1], release: [] }],
    ['a live lease of another replica is waited for', [lease(p1, 'r2', NOW + 5000)], { claim: [], release: [] }],
    [
      'a partition I hold and should hold is kept (renewal does it)',
      [lease(p1, 'r1', NOW + 5000)],
      { claim: [], release: [] },
    ],
    ['a partition I hold that r2 should own is released', [lease(p2, 'r1', NOW + 5000)], { claim: [], release: [p2] }],
    ['a free partition of r2 is left to r2', [lease(p2, '', 0)], { claim: [], release: [] }],
    ['an expired partition of r2 is left to r2', [lease(p2, 'dead', NOW - 1)], { claim: [], release: [] }],
  ])('%s', (_name, leases, plan) => {
    expect(planLeases('r1', live, leases, NOW)).toEqual(plan);
  });

  it('counts me as live before my membership row is visible', () => {
    const leases = ALL.map((p) => lease(p, '', 0));
    expect(planLeases('r1', [m('r2', ASSIGNMENT)], leases, NOW).claim).toEqual(mine);
  });

  it('takes every partition when alone', () => {
    const leases = ALL.map((p) => lease(p, 'gone', NOW - 1));
    expect(planLeases('solo', [m('solo', ASSIGNMENT)], leases, NOW)).toEqual({ claim: ALL, release: [] });
  });

  it('beside a replica of an older version, plans by rendezvous, as that replica does', () => {
    // The older replica claims what rendezvous gives it; were this one to plan balanced shares,
    // a partition each thinks the other's would be left without an owner.
    const leases = ALL.map((p) => lease(p, '', 0));
    const old = ALL.filter((p) => desiredOwner(p, ['new', 'old']) === 'new');
    expect(planLeases('new', [m('new', ASSIGNMENT), m('old', '')], leases, NOW).claim).toEqual(old);
    expect(old).not.toEqual(ALL.filter((p) => desiredOwners(['new', 'old'], 'balanced')[p] === 'new'));
  });
});

describe('modeConflict (a replica joining the others on one database)', () => {
  const NOW = 1_800_000_000_000;
  const nats = (prefix = 'picket'): ReplicaMode => ({ mode: 'nats', subjectPrefix: prefix });
  const embedded: ReplicaMode = { mode: 'embedded', subjectPrefix: '' };
  const member = (id: string, m: ReplicaMode | { mode: ''; subjectPrefix: '' }): MemberMode => ({
    id,
    ...m,
    lastSeenAt: NOW - 3000,
  });

  it.each<[string, ReplicaMode, MemberMode[], RegExp | null]>([
    ['alone', embedded, [], null],
    ['same NATS mode and prefix', nats(), [member('a', nats()), member('b', nats())], null],
    ['embedded beside embedded', embedded, [member('a', embedded)], null],
    [
      'a replica from before modes were recorded is not compared',
      embedded,
      [member('old', { mode: '', subjectPrefix: '' })],
      null,
    ],
    ['its own row is not a conflict', embedded, [member('me', nats())], null],
    [
      'embedded beside NATS replicas',
      embedded,
      [member('a', nats('prod'))],
      /coordinator a \(seen 3 s ago\) runs on this database in NATS mode \(subject prefix prod\), but this one \(me\) would run in embedded mode \(no NATS_URL\).*set NATS_URL .* NATS_SUBJECT_PREFIX=prod/,
    ],
    [
      'NATS beside an embedded replica',
      nats(),
      [member('a', embedded)],
      /runs on this database in embedded mode \(no NATS_URL\), but this one \(me\) would run in NATS mode.*unset NATS_URL/,
    ],
    [
      'another subject prefix',
      nats('staging'),
      [member('a', nats('prod'))],
      /subject prefix prod.*subject prefix staging/,
    ],
  ])('%s', (_, mine, others, expected) => {
    const conflict = modeConflict('me', mine, others, NOW);
    if (expected === null) expect(conflict).toBeNull();
    else expect(conflict).toMatch(expected);
  });
});
