import { describe, expect, it } from '@jest/globals';
import { REGION_IDS } from '#contracts';
import { agentsListing } from './agents-list.js';
import type { AgentEntity } from './agent.entity.js';
import { CHECKER_ADDRESS_MAX_AGE_MS, checkerAddresses, checkerAddressesText } from './checker-addresses.js';

const NOW = Date.UTC(2026, 10, 24, 12);

describe('checkerAddresses', () => {
  const agent = (regions: string[], ipv4: string[], ipv6: string[], lastSeenAt = NOW) => ({
    regions: regions as never,
    ipv4,
    ipv6,
    lastSeenAt,
  });

  it('lists all fifteen regions in order with name and continent, empty when nobody serves them', () => {
    const regions = checkerAddresses([], {}, NOW);
    expect(regions.map((r) => r.id)).toEqual([...REGION_IDS]);
    expect(regions[0]).toEqual({
      id: 'us-east-1',
      name: 'N. Virginia',
      continent: 'North America',
      ipv4: [],
      ipv6: [],
    });
  });

  it('merges agents and configuration per region, by family, sorted and without duplicates', () => {
    const regions = checkerAddresses(
      [
        agent(['eu-west-1', 'us-east-1'], ['198.51.100.9', '198.51.100.2'], ['2001:db8::9']),
        agent(['eu-west-1'], ['198.51.100.2'], []),
        agent(['ap-east-1'], ['192.0.2.1'], [], NOW - CHECKER_ADDRESS_MAX_AGE_MS - 1), // gone a day
      ],
      { 'eu-west-1': ['203.0.113.5', '2001:db8::5'], 'sa-east-1': ['192.0.2.77'] },
      NOW,
    );
    const byId = Object.fromEntries(regions.map((r) => [r.id, [r.ipv4, r.ipv6]]));
    expect(byId['eu-west-1']).toEqual([
      ['198.51.100.2', '198.51.100.9', '203.0.113.5'],
      ['2001:db8::5', '2001:db8::9'],
    ]);
    expect(byId['us-east-1']).toEqual([['198.51.100.2', '198.51.100.9'], ['2001:db8::9']]);
    expect(byId['sa-east-1']).toEqual([['192.0.2.77'], []]);
    expect(byId['ap-east-1']).toEqual([[], []]);
    expect(checkerAddressesText(regions).split('\n')).toEqual([
      '198.51.100.2',
      '198.51.100.9',
      '2001:db8::9',
      '203.0.113.5',
      '2001:db8::5',
      '192.0.2.77',
      '',
    ]);
    expect(checkerAddressesText(checkerAddresses([], {}, NOW))).toBe('');
  });
});

describe('agentsListing', () => {
  const row = (agentId: string, regions: string[], lastSeenAt: number): AgentEntity =>
    Object.assign(
      {},
      {
        agentId,
        regions: regions as never,
        version: '0.1.0',
        ipv4: ['192.0.2.1'],
        ipv6: [],
        maxInFlight: 2000,
        inFlight: 3,
        icmp: true,
        firstSeenAt: NOW - 3_600_000,
        lastSeenAt,
      },
    );

  it('marks agents online or stale and counts them per region', () => {
    const listing = agentsListing(
      [row('a', ['eu-west-1', 'us-east-1'], NOW - 5000), row('b', ['eu-west-1'], NOW - 120_000)],
      NOW,
    );
    expect(listing.agents.map((a) => [a.agent_id, a.status, a.last_seen_at])).toEqual([
      ['a', 'online', (NOW - 5000) / 1000],
      ['b', 'stale', (NOW - 120_000) / 1000],
    ]);
    expect(listing.regions.find((r) => r.id === 'eu-west-1')).toEqual({ id: 'eu-west-1', agents: 2, online: 1 });
    expect(listing.regions.find((r) => r.id === 'us-east-1')).toEqual({ id: 'us-east-1', agents: 1, online: 1 });
    expect(listing.regions).toHaveLength(15);
  });
});
