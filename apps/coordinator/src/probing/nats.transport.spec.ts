import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { subjectsFor, unknownResult, type ProbeRequest, type ProbeResult } from '#contracts';
import { NatsLink, systemClock, type NatsConnection } from '#runtime';
import { freePort, natsServerBinary, PrivateNats } from '../../../../test/support/faults.js';
import { describeWithNats, testNatsUrl } from '../../../../test/support/nats.js';
import { waitFor } from '../../../../test/support/wait.js';
import { NatsTransport } from './nats.transport.js';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
const newLink = (url: string) =>
  new NatsLink(url, 'transport-test', quiet, { connectTimeoutSeconds: 0, onGiveUp: () => undefined });

const MONITOR = '6650a1b2c3d4e5f6a7b8c9d0';
const T0 = Date.UTC(2026, 10, 24);
const request = (n: number): ProbeRequest => ({
  check_id: `${MONITOR}:${T0 + n}:eu-west-1`,
  monitor_id: MONITOR,
  region: 'eu-west-1',
  scheduled_at: T0 + n,
  type: 'tcp',
  settings: { tcp: { host: '127.0.0.1', port: 9 } } as unknown as ProbeRequest['settings'],
  timeout_ms: 1000,
});

describeWithNats('NatsTransport', () => {
  const prefix = `t_${randomBytes(4).toString('hex')}`;
  let link: NatsLink;
  let nc: NatsConnection;
  const failures: string[] = [];
  let transport: NatsTransport;

  beforeAll(async () => {
    link = newLink(testNatsUrl()!);
    link.start();
    nc = await link.whenConnected();
    transport = new NatsTransport(link, prefix, systemClock, (failure) => failures.push(failure));
  });

  afterAll(async () => {
    await link.drain();
  });

  it('answers UNKNOWN "no agent serves region" (counted) until an agent answers, then the reply', async () => {
    const first = await transport.request(request(1));
    const second = await transport.request(request(2));
    expect([first.status, second.status]).toEqual(['unknown', 'unknown']);
    expect(first.error).toBe('no agent serves region eu-west-1');
    expect(failures).toEqual(['no_responders', 'no_responders']);

    // An agent appears: it answers with a valid result for the request it got.
    nc.subscribe(subjectsFor(prefix).probe('eu-west-1'), {
      callback: (_e, msg) => {
        const wire = JSON.parse(msg.string()) as { check_id: string; scheduled_at: number };
        const answer = unknownResult(request(wire.scheduled_at - T0), 'agent says hi', 'agent-1', T0);
        msg.respond(JSON.stringify(answer));
      },
    });
    await nc.flush();
    const third = await transport.request(request(3));
    expect(`${third.agent_id} ${third.error ?? ''}`).toBe('agent-1 agent says hi');
    expect(failures).toEqual(['no_responders', 'no_responders']); // the answered request is no failure
  });

  it('takes a reply only when it answers the request field for field', async () => {
    const region = 'us-east-1';
    const asked = { ...request(10), region, check_id: `${MONITOR}:${T0 + 10}:${region}` } as ProbeRequest;
    const other = '6650a1b2c3d4e5f6a7b8c9ff';
    const tampered: Record<string, (answer: ProbeResult) => ProbeResult> = {
      monitor_id: (answer) => ({ ...answer, monitor_id: other }),
      region: (answer) => ({ ...answer, region: 'eu-west-1' }),
      scheduled_at: (answer) => ({ ...answer, scheduled_at: answer.scheduled_at + 1 }),
      check_id: (answer) => ({ ...answer, check_id: `${other}:${T0 + 10}:${region}` }),
      nothing: (answer) => answer,
    };
    let change = tampered.nothing!;
    const sub = nc.subscribe(subjectsFor(prefix).probe(region), {
      callback: (_e, msg) => {
        msg.respond(JSON.stringify(change(unknownResult(asked, 'hi', 'agent-2', T0))));
      },
    });
    await nc.flush();
    const seen: Record<string, string> = {};
    for (const [field, edit] of Object.entries(tampered)) {
      change = edit;
      const result = await transport.request(asked);
      seen[field] = `${result.agent_id} ${result.monitor_id} ${result.error ?? ''}`;
    }
    sub.unsubscribe();
    const invalid = `coordinator ${MONITOR} an agent of region ${region} sent an invalid reply`;
    expect(seen).toEqual({
      monitor_id: invalid,
      region: invalid,
      scheduled_at: invalid,
      check_id: invalid,
      nothing: `agent-2 ${MONITOR} hi`,
    });
  });
});

describe('NatsTransport while the link is not connected', () => {
  it('answers UNKNOWN with failure "transport" before the link ever connected', async () => {
    const link = newLink(`nats://127.0.0.1:${await freePort()}`);
    link.start();
    const failures: string[] = [];
    const transport = new NatsTransport(link, 'never', systemClock, (failure) => failures.push(failure));
    const result = await transport.request(request(1));
    await link.close();
    expect(result).toMatchObject({ status: 'unknown', error: 'the message bus (NATS) is unavailable' });
    expect(failures).toEqual(['transport']);
  });

  const binary = natsServerBinary();
  if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
    throw new Error('this suite needs nats-server on this machine (Debian package nats-server)');
  }
  // Connected once, then the server goes away: the client would hold the request until its
  // timeout ("timeout"); the transport must not even try ("transport").
  (binary ? it : it.skip)('answers UNKNOWN with failure "transport" while the link reconnects', async () => {
    const nats = await new PrivateNats(binary!).start();
    const link = newLink(nats.url);
    try {
      link.start();
      await link.whenConnected();
      await nats.stop();
      await waitFor('the link to notice the outage', async () => (link.connected ? undefined : true));
      const failures: string[] = [];
      const transport = new NatsTransport(link, 'outage', systemClock, (failure) => failures.push(failure));
      const result = await transport.request(request(2));
      expect(result).toMatchObject({ status: 'unknown', error: 'the message bus (NATS) is unavailable' });
      expect(failures).toEqual(['transport']);
    } finally {
      await link.close();
      await nats.stop();
    }
  });
});
