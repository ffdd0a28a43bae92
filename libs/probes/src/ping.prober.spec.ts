import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupFunction } from 'node:net';
import type { PingSettings, ProbeRequest } from '#contracts';
import { systemClock } from '#runtime';
import { ICMP_CAPABILITY_HINT, IcmpPinger } from './icmp-pinger.js';
import { createPingProber } from './ping.prober.js';
import type { ProbeContext, Prober, ProberTable } from './prober.js';
import { echoReplyTo, FakeRawSocketModule, unreachableFor } from './raw-socket.fake.js';
import { runProbe } from './run-probe.js';
import { tableWithOnly } from '../../../test/support/probe-request.js';

// ---- helpers ------------------------------------------------------------------------------------

/** Test names resolve through this lookup only; `slow.test` never answers. */
const HOSTS: Record<string, { address: string; family: number }[]> = {
  'box.test': [{ address: '127.0.0.1', family: 4 }],
  'box6.test': [{ address: '::1', family: 6 }],
  'dual.test': [
    { address: '::1', family: 6 },
    { address: '127.0.0.1', family: 4 },
  ],
};
const lookups: string[] = [];
const testLookup: LookupFunction = (hostname, options, callback) => {
  lookups.push(hostname);
  if (hostname === 'slow.test') return;
  setImmediate(() => {
    const entries = HOSTS[hostname];
    if (entries === undefined) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      callback(error, '', 0);
    } else if (options.all) {
      callback(null, entries);
    } else {
      callback(null, entries[0]?.address ?? '', entries[0]?.family ?? 4);
    }
  });
};

function context(signal = new AbortController().signal): ProbeContext {
  return { signal, timeoutMs: 5000 };
}

function table(ping: Prober<'ping'>): ProberTable {
  return tableWithOnly('ping', ping);
}

function request(url: string, timeoutMs: number): ProbeRequest<'ping'> {
  return {
    check_id: '0123456789abcdef01234567:1767225600000:eu-west-1',
    monitor_id: '0123456789abcdef01234567',
    region: 'eu-west-1',
    scheduled_at: 1767225600000,
    type: 'ping',
    settings: { url } satisfies PingSettings,
    timeout_ms: timeoutMs,
  };
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

afterEach(() => {
  lookups.length = 0;
});

// ---- on real raw sockets ------------------------------------------------------------------------

describe('ping prober (real ICMP on loopback)', () => {
  let pinger: IcmpPinger;
  let prober: Prober<'ping'>;

  beforeAll(async () => {
    pinger = await IcmpPinger.open();
    prober = createPingProber(pinger, { lookup: testLookup });
  });

  afterAll(() => pinger.close());

  it('is UP for 127.0.0.1 with the round-trip time as total_ms', async () => {
    const outcome = await prober({ url: 'ping://127.0.0.1' }, context());
    expect(outcome).toEqual({ status: 'up', phase: null, error: null, timings: { total_ms: expect.any(Number) } });
    expect(lookups).toEqual([]);
  });

  it('is UP for ::1', async () => {
    const outcome = await prober({ url: 'ping://[::1]' }, context());
    expect(outcome).toMatchObject({ status: 'up', timings: { total_ms: expect.any(Number) } });
  });

  it('resolves a name with the given lookup and times the dns phase', async () => {
    const outcome = await prober({ url: 'ping://box.test' }, context());
    expect(outcome).toMatchObject({
      status: 'up',
      timings: { dns_ms: expect.any(Number), total_ms: expect.any(Number) },
    });
    expect(lookups).toEqual(['box.test']);
    expect(await prober({ url: 'ping://box6.test' }, context())).toMatchObject({ status: 'up' });
  });

  it('is DOWN/dns when the name does not resolve', async () => {
    const outcome = await prober({ url: 'ping://missing.test' }, context());
    expect(outcome).toMatchObject({ status: 'down', phase: 'dns', error: 'host name not found' });
    expect(lookups).toEqual(['missing.test']);
  });

  it('is DOWN/timeout when the deadline passes first (through runProbe)', async () => {
    const result = await runProbe(table(prober), request('ping://slow.test', 150), {
      agentId: 'test-agent',
      clock: systemClock,
    });
    expect(result).toMatchObject({ status: 'down', phase: 'timeout', error: 'timed out after 150 ms' });
    expect(result.response_time_ms).toEqual(expect.any(Number));
  });

  it('is UNKNOWN when the agent stops the check (through runProbe)', async () => {
    const stop = new AbortController();
    const pending = runProbe(table(prober), request('ping://slow.test', 60_000), {
      agentId: 'test-agent',
      clock: systemClock,
      signal: stop.signal,
    });
    await waitFor(() => lookups.length > 0);
    stop.abort(new Error('agent stopping'));
    expect(await pending).toMatchObject({
      status: 'unknown',
      phase: 'internal',
      error: 'probe cancelled by the agent',
      response_time_ms: null,
    });
  });

  it('answers UP through runProbe with the rounded round-trip time', async () => {
    const result = await runProbe(table(prober), request('ping://127.0.0.1', 5000), {
      agentId: 'test-agent',
      clock: systemClock,
    });
    expect(result).toMatchObject({ status: 'up', phase: null, error: null, response_time_ms: expect.any(Number) });
    expect(result.response_time_ms).toBe(result.timings.total_ms);
  });
});

// ---- capability ---------------------------------------------------------------------------------

describe('ping prober when the agent cannot send ICMP', () => {
  it('is UNKNOWN/internal with the pinger reason, never DOWN', async () => {
    const pinger = IcmpPinger.unavailable(ICMP_CAPABILITY_HINT);
    const prober = createPingProber(pinger, { lookup: testLookup });
    const outcome = await prober({ url: 'ping://127.0.0.1' }, context());
    expect(outcome).toMatchObject({ status: 'unknown', phase: 'internal', error: ICMP_CAPABILITY_HINT });
    expect(await prober({ url: 'ping://box.test' }, context())).toMatchObject({
      status: 'unknown',
      error: ICMP_CAPABILITY_HINT,
    });
    const result = await runProbe(table(prober), request('ping://[::1]', 5000), {
      agentId: 'test-agent',
      clock: systemClock,
    });
    expect(result).toMatchObject({
      status: 'unknown',
      phase: 'internal',
      error: ICMP_CAPABILITY_HINT,
      response_time_ms: null,
    });
  });

  it('pings the IPv4 address of a name when only IPv6 is unavailable, and is UNKNOWN for an IPv6 literal', async () => {
    const fake = new FakeRawSocketModule();
    fake.failures = { 6: 'Address family not supported by protocol' };
    fake.onSend = (sent, socket) => socket.deliver(echoReplyTo(sent), sent.address);
    const pinger = await IcmpPinger.open({ rawSocket: fake });
    const prober = createPingProber(pinger, { lookup: testLookup });
    expect(await prober({ url: 'ping://dual.test' }, context())).toMatchObject({ status: 'up' });
    expect(fake.sent.map((sent) => sent.address)).toEqual(['127.0.0.1']);
    expect(await prober({ url: 'ping://[::1]' }, context())).toMatchObject({
      status: 'unknown',
      phase: 'internal',
      error: pinger.ipv6UnavailableReason,
    });
    pinger.close();
  });
});

// ---- answers that loopback cannot produce (stand-in socket) -------------------------------------

describe('ping prober (stand-in socket)', () => {
  it('is DOWN/connect when a destination-unreachable answers the request', async () => {
    const fake = new FakeRawSocketModule();
    fake.onSend = (sent, socket) => socket.deliver(unreachableFor(sent), '127.0.0.9');
    const pinger = new IcmpPinger({ rawSocket: fake });
    const outcome = await createPingProber(pinger)({ url: 'ping://127.0.0.7' }, context());
    expect(outcome).toMatchObject({ status: 'down', phase: 'connect', error: 'destination unreachable (127.0.0.7)' });
    pinger.close();
  });

  it('is DOWN/timeout when no echo reply arrives before the deadline (through runProbe)', async () => {
    const fake = new FakeRawSocketModule(); // answers nothing
    const pinger = new IcmpPinger({ rawSocket: fake });
    const result = await runProbe(table(createPingProber(pinger)), request('ping://127.0.0.1', 150), {
      agentId: 'test-agent',
      clock: systemClock,
    });
    expect(result).toMatchObject({ status: 'down', phase: 'timeout', error: 'no echo reply within 150 ms' });
    expect(fake.sent).toHaveLength(1);
    expect(pinger.inFlight).toBe(0);
    pinger.close();
  });

  it('is UNKNOWN when the agent stops the check while waiting for the reply', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    const stop = new AbortController();
    const pending = runProbe(table(createPingProber(pinger)), request('ping://[::1]', 60_000), {
      agentId: 'test-agent',
      clock: systemClock,
      signal: stop.signal,
    });
    await waitFor(() => fake.sent.length > 0);
    stop.abort(new Error('agent stopping'));
    expect(await pending).toMatchObject({ status: 'unknown', phase: 'internal', response_time_ms: null });
    pinger.close();
  });

  it('is UNKNOWN when the pinger is closed under a running check', async () => {
    const fake = new FakeRawSocketModule();
    const pinger = new IcmpPinger({ rawSocket: fake });
    const pending = createPingProber(pinger)({ url: 'ping://127.0.0.1' }, context());
    await waitFor(() => fake.sent.length > 0);
    pinger.close();
    expect(await pending).toMatchObject({ status: 'unknown', phase: 'internal' });
  });
});
