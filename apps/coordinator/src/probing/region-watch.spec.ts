import { describe, expect, it } from '@jest/globals';
import type { RegionId } from '#contracts';
import { describeRegionChange, RegionWatch } from './region-watch.js';

const needs = (entries: [RegionId, number][]) => new Map<RegionId, number>(entries);

describe('RegionWatch', () => {
  it('tells once when a needed region has no agent, and once when it has one again', () => {
    const watch = new RegionWatch();
    expect(watch.update(needs([['eu-west-1', 3]]), { 'eu-west-1': 1 })).toEqual([]);
    expect(watch.update(needs([['eu-west-1', 3]]), { 'eu-west-1': 0 })).toEqual([
      { region: 'eu-west-1', blind: true, monitors: 3, agents: 0 },
    ]);
    expect(watch.update(needs([['eu-west-1', 4]]), {})).toEqual([]); // still blind: no repeat
    expect(watch.blindRegions).toEqual(['eu-west-1']);
    expect(watch.update(needs([['eu-west-1', 4]]), { 'eu-west-1': 2 })).toEqual([
      { region: 'eu-west-1', blind: false, monitors: 4, agents: 2 },
    ]);
    expect(watch.blindRegions).toEqual([]);
    expect(watch.update(needs([['eu-west-1', 4]]), { 'eu-west-1': 2 })).toEqual([]);
  });

  it('a region nobody needs is never blind, and stops being blind when its monitors go', () => {
    const watch = new RegionWatch();
    expect(watch.update(needs([['us-east-1', 0]]), {})).toEqual([]);
    expect(watch.update(needs([['ap-southeast-1', 1]]), {})).toHaveLength(1);
    expect(watch.update(needs([]), {})).toEqual([{ region: 'ap-southeast-1', blind: false, monitors: 0, agents: 0 }]);
  });

  it('tracks regions independently', () => {
    const watch = new RegionWatch();
    const changes = watch.update(
      needs([
        ['us-east-1', 2],
        ['eu-west-1', 1],
        ['ap-southeast-1', 5],
      ]),
      { 'eu-west-1': 1 },
    );
    expect(changes.map((c) => c.region).sort()).toEqual(['ap-southeast-1', 'us-east-1']);
    expect(watch.blindRegions).toEqual(['ap-southeast-1', 'us-east-1']);
  });

  it.each([
    [
      { region: 'eu-west-1', blind: true, monitors: 3, agents: 0 },
      /no live agent but 3 monitors need it.*AGENT_REGIONS=eu-west-1/,
    ],
    [{ region: 'eu-west-1', blind: false, monitors: 3, agents: 2 }, /has 2 live agents again/],
    [{ region: 'eu-west-1', blind: false, monitors: 0, agents: 0 }, /no longer needed/],
  ] as const)('describes %j', (change, text) => {
    expect(describeRegionChange(change)).toMatch(text);
  });
});
