import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import {
  fromWireRequest,
  subjectsFor,
  unknownResult,
  type ProbeRequest,
  type ProbeResult,
  type WireProbeRequestDto,
} from '#contracts';
import { ManualClock, NatsLink, type Msg, type NatsConnection, type Subscription } from '#runtime';
import { describeWithNats, testNatsUrl } from '../../../../test/support/nats.js';
import { waitFor } from '../../../../test/support/wait.js';
import { ManualTimers } from '../scheduling/timers.js';
import { BATCH_RETRY_MS, BatchingNatsTransport } from './nats-batch.transport.js';
import { NatsTransport } from './nats.transport.js';
import { REPLY_GRACE_MS } from './probe-transport.js';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
const MONITOR = '6650a1b2c3d4e5f6a7b8c9d0';
const WINDOW_MS = 20;

/** The checks a fake agent received in one batch message, and the message to answer on. */
interface Received {
  msg: Msg;
  checks: ProbeRequest[];
}

const answer = (request: ProbeRequest, agent: string): ProbeResult =>
  unknownResult(request, `answered by ${agent}`, agent, request.scheduled_at);

describeWithNats('BatchingNatsTransport', () => {
  let link: NatsLink;
  let nc: NatsConnection;
  let clock: ManualClock;
  let timers: ManualTimers;
  let prefix: string;
  let transport: BatchingNatsTransport;
  let failures: string[];
  let batches: { checks: number; at: number }[];
  let fallbacks: number;
  const subs: Subscription[] = [];
  let n = 0;

  const request = (region = 'eu-west-1', overrides: Partial<ProbeRequest> = {}): ProbeRequest => {
    const scheduledAt = clock.now() + ++n; // unique per check
    return {
      check_id: `${MONITOR}:${scheduledAt}:${region}`,
      monitor_id: MONITOR,
      region,
      scheduled_at: scheduledAt,
      type: 'tcp',
      settings: { url: 'tcp://127.0.0.1:9' },
      timeout_ms: 1000,
      ...overrides,
    };
  };

  /** A fake agent of `region`'s queue group taking batches: `received` gets each batch. */
  const batchAgent = async (region: string, received: Received[] = []): Promise<Received[]> => {
    subs.push(
      nc.subscribe(subjectsFor(prefix).probeBatch(region as 'eu-west-1'), {
        queue: 'picket-agents',
        callback: (_e, msg) => {
          const { checks } = msg.json<{ checks: WireProbeRequestDto[] }>();
          received.push({ msg, checks: checks.map((c) => fromWireRequest(c)!) });
        },
      }),
    );
    await nc.flush();
    return received;
  };

  const reply = (msg: Msg, results: unknown[]) => msg.respond(JSON.stringify({ results }));

  beforeAll(async () => {
    link = new NatsLink(testNatsUrl()!, 'batch-transport-test', quiet, {
      connectTimeoutSeconds: 0,
      onGiveUp: () => undefined,
    });
    link.start();
    nc = await link.whenConnected();
  });

  beforeEach(() => {
    prefix = `tb_${randomBytes(4).toString('hex')}`;
    clock = new ManualClock(Date.UTC(2026, 10, 24, 12));
    timers = new ManualTimers(clock);
    failures = [];
    batches = [];
    fallbacks = 0;
    const onFailure = (failure: string) => failures.push(failure);
    transport = new BatchingNatsTransport(
      link,
      prefix,
      clock,
      timers,
      new NatsTransport(link, prefix, clock, onFailure),
      {
        windowMs: WINDOW_MS,
        onBatch: (checks) => batches.push({ checks, at: clock.now() }),
        onFallback: () => fallbacks++,
      },
      onFailure,
    );
  });

  afterEach(() => {
    for (const sub of subs.splice(0)) sub.unsubscribe();
  });

  afterAll(async () => {
    await link.drain();
  });

  it('sends the checks due within the window as one batch and takes their results from several replies', async () => {
    const received = await batchAgent('eu-west-1');
    const asked = [request(), request(), request()];
    const results = asked.map((r) => transport.request(r));
    timers.advance(WINDOW_MS - 1);
    expect(batches).toEqual([]); // still collecting
    timers.advance(1);
    expect(batches).toEqual([{ checks: 3, at: clock.now() }]);
    await waitFor('the batch to arrive', async () => (received.length === 1 ? true : undefined));
    const [batch] = received;
    expect(batch!.checks.map((c) => c.check_id)).toEqual(asked.map((r) => r.check_id));
    // Out of order, in two replies.
    reply(batch!.msg, [answer(asked[2]!, 'agent-1')]);
    reply(batch!.msg, [answer(asked[0]!, 'agent-1'), answer(asked[1]!, 'agent-1')]);
    const got = await Promise.all(results);
    expect(got.map((r) => `${r.check_id} ${r.error}`)).toEqual(asked.map((r) => `${r.check_id} answered by agent-1`));
    expect(failures).toEqual([]);
    expect(transport.waiting).toBe(0);
  });

  it('a batch partly answered: the rest time out to UNKNOWN, each at its own deadline', async () => {
    const received = await batchAgent('eu-west-1');
    const fast = request('eu-west-1', { timeout_ms: 1000 });
    const unanswered = request('eu-west-1', { timeout_ms: 1000 });
    const slow = request('eu-west-1', { timeout_ms: 3000 });
    const settled: string[] = [];
    const track = (r: ProbeRequest) =>
      transport.request(r).then((result) => {
        settled.push(r.check_id);
        return result;
      });
    const [a, b, c] = [track(fast), track(unanswered), track(slow)];
    timers.advance(WINDOW_MS);
    await waitFor('the batch to arrive', async () => (received.length === 1 ? true : undefined));
    reply(received[0]!.msg, [answer(fast, 'agent-1')]);
    expect((await a).agent_id).toBe('agent-1');

    timers.advance(1000 + REPLY_GRACE_MS - 1);
    await nc.flush();
    expect(settled).toEqual([fast.check_id]);
    timers.advance(1);
    expect(await b).toMatchObject({
      status: 'unknown',
      agent_id: 'coordinator',
      error: 'no answer from the agents of region eu-west-1 in time',
    });
    expect(settled).toEqual([fast.check_id, unanswered.check_id]);
    // The slower check still waits, and a late answer for the expired one changes nothing.
    reply(received[0]!.msg, [answer(unanswered, 'agent-1'), answer(slow, 'agent-1')]);
    expect((await c).agent_id).toBe('agent-1');
    expect(failures).toEqual(['timeout']);
  });

  it('an invalid result for one check of a batch makes that check UNKNOWN, not the others', async () => {
    const received = await batchAgent('eu-west-1');
    const asked = [request(), request(), request(), request()];
    const results = asked.map((r) => transport.request(r));
    timers.advance(WINDOW_MS);
    await waitFor('the batch to arrive', async () => (received.length === 1 ? true : undefined));
    const [good, wrongMonitor, malformed, good2] = asked as [ProbeRequest, ProbeRequest, ProbeRequest, ProbeRequest];
    reply(received[0]!.msg, [
      answer(good, 'agent-1'),
      { ...answer(wrongMonitor, 'agent-1'), monitor_id: '6650a1b2c3d4e5f6a7b8c9ff' },
      { ...answer(malformed, 'agent-1'), status: 'fine' },
      { check_id: 'not even a result' },
      answer(good2, 'agent-1'),
    ]);
    const got = await Promise.all(results);
    const invalid = 'an agent of region eu-west-1 sent an invalid reply';
    expect(got.map((r) => `${r.agent_id} ${r.error}`)).toEqual([
      'agent-1 answered by agent-1',
      `coordinator ${invalid}`,
      `coordinator ${invalid}`,
      'agent-1 answered by agent-1',
    ]);
    expect(failures).toEqual(['invalid_reply', 'invalid_reply']);
  });

  it('no responders for a batch: every check UNKNOWN "no agent serves region"', async () => {
    const asked = [request('ap-southeast-2'), request('ap-southeast-2')];
    const results = asked.map((r) => transport.request(r));
    timers.advance(WINDOW_MS);
    const got = await Promise.all(results);
    expect(got.map((r) => `${r.status} ${r.agent_id} ${r.error}`)).toEqual([
      'unknown coordinator no agent serves region ap-southeast-2',
      'unknown coordinator no agent serves region ap-southeast-2',
    ]);
    expect(failures).toEqual(['no_responders', 'no_responders']);
    expect(fallbacks).toBe(1);
  });

  it('an older agent (single checks only) answers every check; batches are tried again later', async () => {
    const singles: string[] = [];
    subs.push(
      nc.subscribe(subjectsFor(prefix).probe('us-west-2'), {
        queue: 'picket-agents',
        callback: (_e, msg) => {
          const asked = fromWireRequest(msg.json<WireProbeRequestDto>())!;
          singles.push(asked.check_id);
          msg.respond(JSON.stringify(answer(asked, 'old-agent')));
        },
      }),
    );
    await nc.flush();
    const first = [request('us-west-2'), request('us-west-2')];
    const firstResults = first.map((r) => transport.request(r));
    timers.advance(WINDOW_MS);
    expect((await Promise.all(firstResults)).map((r) => r.error)).toEqual([
      'answered by old-agent',
      'answered by old-agent',
    ]);
    expect(fallbacks).toBe(1);
    // Meanwhile the region's checks go one by one at once, without a batch.
    expect((await transport.request(request('us-west-2'))).error).toBe('answered by old-agent');
    expect(batches).toHaveLength(1);
    // Upgraded: once BATCH_RETRY_MS passed, batches again.
    const received = await batchAgent('us-west-2');
    timers.advance(BATCH_RETRY_MS);
    const later = request('us-west-2');
    const laterResult = transport.request(later);
    timers.advance(WINDOW_MS);
    await waitFor('the batch to arrive', async () => (received.length === 1 ? true : undefined));
    reply(received[0]!.msg, [answer(later, 'new-agent')]);
    expect((await laterResult).agent_id).toBe('new-agent');
    expect(singles).toHaveLength(3);
    expect(failures).toEqual([]);
  });

  it.each([
    ['on time: at the end of the window', 0, WINDOW_MS],
    ['35 ms late: at slot + 50', 35, 15],
    ['49 ms late: at slot + 50', 49, 1],
    ['70 ms late (a late scheduler tick): at once', 70, 0],
  ])('the 50 ms bound: a check queued %s', async (_case, lateness, sentAfter) => {
    const received = await batchAgent('eu-west-1');
    const queuedAt = clock.now();
    const late = request('eu-west-1', { scheduled_at: queuedAt - lateness });
    const late2 = { ...late, check_id: `${MONITOR}:${queuedAt - lateness}:eu-west-1` };
    const result = transport.request(late2);
    timers.advance(60);
    expect(batches).toEqual([{ checks: 1, at: queuedAt + sentAfter }]);
    expect(batches[0]!.at - late2.scheduled_at).toBeLessThanOrEqual(Math.max(50, lateness));
    await waitFor('the batch to arrive', async () => (received.length === 1 ? true : undefined));
    reply(received[0]!.msg, [answer(late2, 'agent-1')]);
    expect((await result).agent_id).toBe('agent-1');
  });

  it('a check whose batch opened earlier leaves by its own slot + 50 ms, with the batch', async () => {
    await batchAgent('eu-west-1');
    const opened = clock.now();
    void transport.request(request()); // opens the batch: due at opened + 20
    timers.advance(10);
    const late = request('eu-west-1', { scheduled_at: clock.now() - 45 });
    void transport.request({ ...late, check_id: `${MONITOR}:${late.scheduled_at}:eu-west-1` });
    timers.advance(30);
    expect(batches).toEqual([{ checks: 2, at: opened + 15 }]);
  });
});
