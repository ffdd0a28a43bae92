import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { promises as dns } from 'node:dns';
import { checkInput } from '#validation';
import { MONITOR_TYPE_TABLE, type DnsSettings, type ProbeRequest } from '#contracts';
import { systemClock } from '#runtime';
import { startDnsServer, type DnsZone, type TestDnsServer } from '../../../test/support/dns-server.js';
import { probeRequest, tableWithOnly } from '../../../test/support/probe-request.js';
import { waitFor } from '../../../test/support/wait.js';
import { createDnsProber, matches } from './dns.prober.js';
import type { ProbeContext } from './prober.js';
import { runProbe } from './run-probe.js';

const ZONE: DnsZone = {
  records: {
    'example.test': [
      { type: 'A', value: '192.0.2.10' },
      { type: 'A', value: '192.0.2.11' },
      { type: 'AAAA', value: '2001:db8::10' },
      { type: 'MX', priority: 10, exchange: 'mail.example.test' },
      { type: 'MX', priority: 20, exchange: 'backup.example.test' },
      { type: 'TXT', strings: ['v=spf1 ', '-all'] },
      { type: 'NS', value: 'ns1.example.test' },
      { type: 'CAA', flags: 0, tag: 'issue', value: 'ca.example' },
      {
        type: 'SOA',
        nsname: 'ns1.example.test',
        hostmaster: 'hostmaster.example.test',
        serial: 2026112501,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minttl: 60,
      },
    ],
    'www.example.test': [{ type: 'CNAME', value: 'example.test' }],
    'empty.example.test': [{ type: 'TXT', strings: ['only text'] }],
  },
  servfail: ['broken.example.test'],
  silent: ['silent.example.test'],
};

let server: TestDnsServer;
beforeAll(async () => {
  server = await startDnsServer(ZONE);
});
afterAll(() => server.close());
beforeEach(() => {
  server.queries.length = 0;
});

function context(timeoutMs = 2000, signal = new AbortController().signal): ProbeContext {
  return { signal, timeoutMs };
}

function settings(name: string, extra: Partial<DnsSettings> = {}): DnsSettings {
  return { url: `dns://${name}`, record_type: 'A', resolver: server.address, ...extra };
}

const prober = createDnsProber();

describe('dns prober: answers and expected values (a local DNS server)', () => {
  it.each<[DnsSettings['record_type'], string, string[]]>([
    ['A', 'example.test', ['192.0.2.10', '192.0.2.11']],
    ['AAAA', 'example.test', ['2001:db8::10']],
    ['CNAME', 'www.example.test', ['EXAMPLE.test.']],
    ['MX', 'example.test', ['10 mail.example.test', 'backup.example.test']],
    ['TXT', 'example.test', ['v=spf1 -all']],
    ['NS', 'example.test', ['ns1.example.test']],
    ['CAA', 'example.test', ['0 issue "ca.example"', 'ca.example']],
    [
      'SOA',
      'example.test',
      ['ns1.example.test', 'ns1.example.test hostmaster.example.test 2026112501 3600 600 86400 60'],
    ],
  ])('%s of %s is UP with every expected value among the answers', async (record_type, name, expected) => {
    const outcome = await prober(settings(name, { record_type, expected }), context());
    expect(outcome).toMatchObject({ status: 'up', phase: null, error: null });
    expect(outcome.timings.dns_ms).toEqual(expect.any(Number));
    expect(outcome.timings.total_ms).toBeGreaterThanOrEqual(outcome.timings.dns_ms!);
    expect(server.queries).toEqual([`${name} ${record_type}`]);
  });

  it('is DOWN/assertion naming the missing value and what came back', async () => {
    const outcome = await prober(settings('example.test', { expected: ['192.0.2.10', '192.0.2.99'] }), context());
    expect(outcome).toMatchObject({
      status: 'down',
      phase: 'assertion',
      error: 'expected "192.0.2.99" among the A answers, got 192.0.2.10, 192.0.2.11',
    });
  });

  it('compares TXT values exactly (case matters), names without case', () => {
    expect(matches({ text: 'v=spf1 -all', caseless: false }, 'V=SPF1 -all')).toBe(false);
    expect(matches({ text: 'mail.example.test', caseless: true }, 'Mail.Example.Test.')).toBe(true);
    expect(
      matches({ text: '10 mail.example.test', main: 'mail.example.test', caseless: true }, '20 mail.example.test'),
    ).toBe(false);
  });

  it.each([
    ['nope.example.test', 'A', 'dns', 'NXDOMAIN: the name does not exist (nope.example.test A)'],
    ['empty.example.test', 'A', 'dns', 'no A records for empty.example.test'],
    ['broken.example.test', 'MX', 'dns', 'SERVFAIL: the DNS server failed (broken.example.test MX)'],
  ] as const)('%s %s is DOWN/%s: %s', async (name, record_type, phase, error) => {
    expect(await prober(settings(name, { record_type }), context())).toMatchObject({ status: 'down', phase, error });
  });

  it('is DOWN/timeout when the resolver never answers (the resolver gives up at the timeout)', async () => {
    const outcome = await prober(settings('silent.example.test'), context(300));
    expect(outcome).toMatchObject({ status: 'down', phase: 'timeout' });
    expect(server.queries[0]).toBe('silent.example.test A');
  });

  it('is DOWN/timeout at the check deadline through runProbe, and UNKNOWN when the agent stops it', async () => {
    const request = (timeoutMs: number): ProbeRequest<'dns'> =>
      probeRequest('dns', settings('silent.example.test'), { timeoutMs });
    const late = await runProbe(tableWithOnly('dns', prober), request(200), { agentId: 'a', clock: systemClock });
    expect(late).toMatchObject({ status: 'down', phase: 'timeout' });

    const stop = new AbortController();
    const pending = runProbe(tableWithOnly('dns', prober), request(60_000), {
      agentId: 'a',
      clock: systemClock,
      signal: stop.signal,
    });
    await waitFor('the query', () => Promise.resolve(server.queries.length > 1 ? true : undefined), 2000);
    stop.abort(new Error('agent stopping'));
    expect(await pending).toMatchObject({ status: 'unknown', error: 'probe cancelled by the agent' });
  });

  it('asks the system resolver when the monitor names none', async () => {
    // A Resolver whose "system" servers are the test server (tests never ask real resolvers).
    class LocalResolver extends dns.Resolver {
      constructor(options?: ConstructorParameters<typeof dns.Resolver>[0]) {
        super(options);
        this.setServers([server.address]);
      }
    }
    const system = createDnsProber({ Resolver: LocalResolver });
    const { resolver: _unused, ...withoutResolver } = settings('www.example.test', { record_type: 'CNAME' });
    expect(await system(withoutResolver, context())).toMatchObject({ status: 'up' });
    expect(server.queries).toEqual(['www.example.test CNAME']);
  });

  it('is BLOCKED, asking nothing, when the egress policy refuses the resolver', async () => {
    const strict = createDnsProber({ egress: 'strict' });
    const outcome = await strict(settings('example.test'), context());
    expect(outcome.status).toBe('blocked');
    expect(outcome.error).toBe('destination_not_allowed: blocked by egress policy: 127.0.0.1');
    expect(server.queries).toEqual([]);
  });
});

describe('dns settings', () => {
  const { dto, toSettings } = MONITOR_TYPE_TABLE.dns;
  const problems = (input: Record<string, unknown>) => checkInput(dto, input).problems;

  it('stores record_type A by default and the optional fields only when set', () => {
    const { value } = checkInput(dto, { url: 'dns://example.com' });
    expect(toSettings(value!)).toEqual({ url: 'dns://example.com', record_type: 'A' });
    const full = checkInput(dto, {
      url: 'dns://Example.COM.',
      record_type: 'MX',
      resolver: '[2001:db8::53]:5353',
      expected: ['mail.example.com'],
    });
    expect(toSettings(full.value!)).toEqual({
      url: 'dns://Example.COM.',
      record_type: 'MX',
      resolver: '[2001:db8::53]:5353',
      expected: ['mail.example.com'],
    });
  });

  it.each([
    [{ url: 'dns://192.0.2.1' }, 'url', 'must name a host, not an IP address'],
    [{ url: 'dns://[::1]' }, 'url', 'must name a host, not an IP address'],
    [{ url: 'dns://example.com/x' }, 'url', 'must have the form dns://<name>'],
    [{ url: 'https://example.com' }, 'url', 'must start with dns://'],
    [
      { url: 'dns://example.com', record_type: 'PTR' },
      'record_type',
      'must be one of: A, AAAA, CNAME, MX, TXT, NS, CAA, SOA',
    ],
    [
      { url: 'dns://example.com', record_type: 'a' },
      'record_type',
      'must be one of: A, AAAA, CNAME, MX, TXT, NS, CAA, SOA',
    ],
    [
      { url: 'dns://example.com', resolver: 'dns.google' },
      'resolver',
      expect.stringContaining('must be an IP address'),
    ],
    [{ url: 'dns://example.com', resolver: '9.9.9.9:0' }, 'resolver', expect.stringContaining('must be an IP address')],
    [
      { url: 'dns://example.com', resolver: '9.9.9.9:65536' },
      'resolver',
      expect.stringContaining('must be an IP address'),
    ],
    [{ url: 'dns://example.com', resolver: '::1:53' }, 'resolver', null],
    [{ url: 'dns://example.com', resolver: '[fe80::1%eth0]:53' }, 'resolver', expect.stringContaining('must be an IP')],
    [{ url: 'dns://example.com', expected: [] }, 'expected', null],
    [{ url: 'dns://example.com', expected: [''] }, 'expected', 'item 0: must not be empty or blank'],
    [{ url: 'dns://example.com', expected: ['a', 'a'] }, 'expected', 'must not contain duplicates'],
    [
      { url: 'dns://example.com', expected: Array.from({ length: 21 }, (_, i) => `v${i}`) },
      'expected',
      'must contain at most 20 items',
    ],
  ])('%j: %s %s', (input, field, message) => {
    expect(problems(input)).toEqual(message === null ? [] : [{ field, message }]);
  });
});
