import { describe, expect, it } from '@jest/globals';
import { REGION_IDS } from '../../../../libs/contracts/src/regions.ts';
import { agentCommand, describeRegions, regionChoices, shellWord, type Region } from './regions.ts';

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

const JWT = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJqdGkiOiJYIn0.c2lnbmF0dXJl';

describe('agentCommand', () => {
  it.each([
    [
      'the token, the region with its account, the creds file, and the NATS address to replace',
      { token: JWT, account_id: '0123456789abcdef01234567', region: 'office' },
      [
        'NATS_URL=tls://nats.example.com:4222 \\',
        '  AGENT_PRIVATE_REGION=0123456789abcdef01234567/office \\',
        `  AGENT_ENROLL_TOKEN=${JWT} \\`,
        '  NATS_CREDS_FILE=/var/lib/picket-agent/nats.creds \\',
        '  npm run agent',
      ],
    ],
    [
      'a region id with dashes, as it is',
      { token: 'abc.def-ghi_jkl', account_id: 'acc123', region: 'lab-2' },
      [
        'NATS_URL=tls://nats.example.com:4222 \\',
        '  AGENT_PRIVATE_REGION=acc123/lab-2 \\',
        '  AGENT_ENROLL_TOKEN=abc.def-ghi_jkl \\',
        '  NATS_CREDS_FILE=/var/lib/picket-agent/nats.creds \\',
        '  npm run agent',
      ],
    ],
    [
      'whatever the shell would read otherwise, quoted',
      { token: "it's $HOME; rm -rf /", account_id: 'acc', region: 'a b' },
      [
        'NATS_URL=tls://nats.example.com:4222 \\',
        "  AGENT_PRIVATE_REGION='acc/a b' \\",
        "  AGENT_ENROLL_TOKEN='it'\\''s $HOME; rm -rf /' \\",
        '  NATS_CREDS_FILE=/var/lib/picket-agent/nats.creds \\',
        '  npm run agent',
      ],
    ],
  ])('%s', (_, given, lines) => {
    expect(agentCommand(given).split('\n')).toEqual(lines);
  });

  it('has no NATS user or password, and no public regions', () => {
    const command = agentCommand({ token: JWT, account_id: 'acc', region: 'office' });
    expect(command).not.toMatch(/NATS_USER|NATS_PASSWORD|AGENT_REGIONS/);
  });
});

describe('shellWord', () => {
  it.each([
    ['office', 'office'],
    ['acc/office', 'acc/office'],
    ['tls://nats.example.com:4222', 'tls://nats.example.com:4222'],
    ['', "''"],
    ['a b', "'a b'"],
    ['$(id)', "'$(id)'"],
    ["o'clock", "'o'\\''clock'"],
  ])('%j → %s', (value, expected) => {
    expect(shellWord(value)).toBe(expected);
  });
});
