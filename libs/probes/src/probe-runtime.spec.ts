import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { ManualClock, PICKET_VERSION } from '#runtime';
import { IcmpPinger } from './icmp-pinger.js';
import { ProbeRuntime, type ProbeRuntimeOptions } from './probe-runtime.js';
import { FakeRawSocketModule } from './raw-socket.fake.js';

const NOW = Date.UTC(2026, 0, 1);
let server: Server | null = null;

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = null;
});

function open(overrides: Partial<ProbeRuntimeOptions> & { raw?: FakeRawSocketModule } = {}) {
  const raw = overrides.raw ?? new FakeRawSocketModule();
  const bugs: unknown[] = [];
  const results: string[] = [];
  return ProbeRuntime.open({
    agentId: 'agent-7',
    clock: new ManualClock(NOW),
    regions: ['eu-west-1', 'us-east-1'],
    maxInFlight: 3,
    egress: 'private-allowed',
    publicIps: ['203.0.113.9', '2001:db8::9'],
    onBug: (error) => bugs.push(error),
    onResult: (result) => results.push(result.status),
    pinger: new IcmpPinger({ rawSocket: raw }),
    ...overrides,
  }).then((runtime) => ({ runtime, raw, bugs, results }));
}

describe('ProbeRuntime (what an agent and the embedded mode run)', () => {
  it('says in its heartbeat what it serves: id, version, regions, announced addresses, capacity, ICMP', async () => {
    const { runtime } = await open();
    expect(runtime.heartbeat()).toEqual({
      agent_id: 'agent-7',
      version: PICKET_VERSION,
      regions: ['eu-west-1', 'us-east-1'],
      ipv4: ['203.0.113.9'],
      ipv6: ['2001:db8::9'],
      in_flight: 0,
      max_in_flight: 3,
      icmp: true,
      sent_at: NOW,
    });
    expect(runtime.icmpProblem).toBeNull();
    await runtime.stop(100);
  });

  it('reports why ICMP checks will be UNKNOWN when raw sockets are refused', async () => {
    const raw = new FakeRawSocketModule();
    raw.failures = { 4: 'Operation not permitted', 6: 'Operation not permitted' };
    const { runtime } = await open({ raw });
    expect(runtime.icmpProblem).toMatch(/CAP_NET_RAW/);
    expect(runtime.heartbeat().icmp).toBe(false);
    await runtime.stop(100);
  });

  it('runs a check through its prober table and counts it; after stop it takes no work and its sockets are closed', async () => {
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const { runtime, raw, results } = await open();
    const request = {
      check_id: `m:${NOW}:eu-west-1`,
      monitor_id: 'm',
      region: 'eu-west-1' as const,
      scheduled_at: NOW,
      type: 'tcp' as const,
      settings: { url: `tcp://127.0.0.1:${port}` },
      timeout_ms: 2000,
    };
    const result = await runtime.execute(request);
    expect(result).toMatchObject({ status: 'up', agent_id: 'agent-7', region: 'eu-west-1' });
    expect(results).toEqual(['up']);
    await runtime.stop(100);
    expect(raw.sockets.every((s) => s.closed)).toBe(true);
    expect(await runtime.execute(request)).toMatchObject({ status: 'unknown', error: 'agent is shutting down' });
  });
});
