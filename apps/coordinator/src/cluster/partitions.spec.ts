import { describe, expect, it } from '@jest/globals';
import {
  desiredOwner,
  modeConflict,
  PARTITION_COUNT,
  partitionOf,
  planLeases,
  type LeaseRow,
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

describe('planLeases', () => {
  const live = ['r1', 'r2'];
  const mine = ALL.filter((p) => desiredOwner(p, live) === 'r1');
  const theirs = ALL.filter((p) => desiredOwner(p, live) === 'r2');
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
    expect(planLeases('r1', ['r2'], leases, NOW).claim).toEqual(mine);
  });

  it('takes every partition when alone', () => {
    const leases = ALL.map((p) => lease(p, 'gone', NOW - 1));
    expect(planLeases('solo', ['solo'], leases, NOW)).toEqual({ claim: ALL, release: [] });
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
