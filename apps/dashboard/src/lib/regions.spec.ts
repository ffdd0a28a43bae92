import { describe, expect, it } from '@jest/globals';
import { REGION_IDS } from '../../../../libs/contracts/src/regions.ts';
import { agentCommand, describeRegions, regionChoices, type Region } from './regions.ts';

const regions: Region[] = [
  { id: 'eu-west-1', name: 'Ireland', continent: 'Europe', type: 'public' },
  { id: 'us-east-1', name: 'Virginia', continent: 'North America', type: 'public' },
  { id: 'office', name: 'Berlin office', type: 'private', agents_online: 0, created_at: 1 },
  { id: 'lab-2', name: 'Lab', type: 'private', agents_online: 1, created_at: 2 },
];

describe('regionChoices', () => {
  it.each([
    [
      'public, then private with their names',
      regions,
      ['eu-west-1'],
      [
        { id: 'eu-west-1', label: 'eu-west-1', private: false },
        { id: 'us-east-1', label: 'us-east-1', private: false },
        { id: 'office', label: 'office (private: Berlin office)', private: true },
        { id: 'lab-2', label: 'lab-2 (private: Lab)', private: true },
      ],
    ],
    [
      'a listed id the account no longer has stays choosable, last',
      regions.slice(0, 1),
      ['gone', 'eu-west-1'],
      [
        { id: 'eu-west-1', label: 'eu-west-1', private: false },
        { id: 'gone', label: 'gone', private: false },
      ],
    ],
  ])('%s', (_, given, selected, expected) => {
    expect(regionChoices(given, selected)).toEqual(expected);
  });

  it('offers the built-in public regions while the API has not answered', () => {
    expect(regionChoices(undefined, []).map((c) => c.id)).toEqual([...REGION_IDS]);
  });
});

describe('describeRegions', () => {
  it.each([
    [['eu-west-1'], regions, 'eu-west-1'],
    [['eu-west-1', 'office'], regions, 'eu-west-1, office (private: Berlin office, 0 agents online)'],
    [['lab-2'], regions, 'lab-2 (private: Lab, 1 agent online)'],
    [['office'], undefined, 'office'],
  ])('%j → %s', (ids, given, expected) => {
    expect(describeRegions(ids, given)).toBe(expected);
  });
});

describe('agentCommand', () => {
  it("names the region with its account, the region's NATS user and a password variable of its own", () => {
    const command = agentCommand('acc123', 'lab-2');
    expect(command).toContain('AGENT_PRIVATE_REGION=acc123/lab-2');
    expect(command).toContain('NATS_USER=lab-2 NATS_PASSWORD="$PICKET_NATS_LAB_2_PASSWORD"');
    expect(command).toContain('NATS_URL=tls://');
    expect(command).toContain('AGENT_ID=lab-2-1 npm run agent');
    expect(command).not.toContain('AGENT_REGIONS');
  });
});
