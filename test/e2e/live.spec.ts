import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request, type IncomingMessage } from 'node:http';
import { StoppingMarker } from '../../apps/coordinator/src/health/health.module.js';
import { MAX_STREAMS_PER_ACCOUNT } from '../../apps/coordinator/src/live/status-feed.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/** One open event stream: the events read so far, parsed. */
interface Stream {
  status: number;
  headers: IncomingMessage['headers'];
  events: { event: string; data: any }[];
  /** Everything read, as text. */
  body: string;
  /** Resolves when the server ends the response. */
  ended: Promise<void>;
  close(): void;
}

/**
 * Live status (docs/decisions/0028-live-status.md): `GET /api/events` streams the account's
 * status changes as server-sent events, from a real coordinator checking a local target.
 */
describe('live status stream', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let a: { apiKey: string; client: ApiClient };
  let b: { apiKey: string; client: ApiClient };
  const target = new SwitchableTarget();
  let monitorId: string;
  const open: Stream[] = [];

  function stream(apiKey: string | null): Promise<Stream> {
    const { port } = new URL(c.baseUrl);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/api/events',
          headers: apiKey === null ? {} : { authorization: `Bearer ${apiKey}` },
        },
        (res) => {
          const s: Stream = {
            status: res.statusCode ?? 0,
            headers: res.headers,
            events: [],
            body: '',
            ended: new Promise((end) => res.on('end', end)),
            close: () => req.destroy(),
          };
          open.push(s);
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            s.body += chunk;
            buffer += chunk;
            for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const event = /^event: (.+)$/m.exec(block)?.[1];
              const data = /^data: (.+)$/m.exec(block)?.[1];
              if (event && data) s.events.push({ event, data: JSON.parse(data) });
            }
          });
          res.on('error', () => undefined);
          resolve(s);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    await target.start();
    c = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true' } });
    a = await c.newAccount('live a');
    b = await c.newAccount('live b');
  });

  afterAll(async () => {
    for (const s of open) s.close();
    await c?.close();
    await target.stop();
    await db?.drop();
  });

  it('is refused without a key, and streams to a key with monitors:read', async () => {
    expect((await stream(null)).status).toBe(401);
    const s = await stream(a.apiKey);
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(s.headers['cache-control']).toBe('no-store');
    await waitFor('the ready event', () => Promise.resolve(s.events.length > 0 ? true : undefined), 5000);
    // The newest status change of the account's monitors when the stream began (none yet: null).
    expect(s.events[0]).toEqual({ event: 'ready', data: { last_status_change: null } });
    s.close();
  });

  it("tells the account's streams of each status change, and no other account's", async () => {
    const mine = await stream(a.apiKey);
    const theirs = await stream(b.apiKey);
    const created = await a.client.post('/api/monitors', {
      name: 'live target',
      settings: { https: { url: target.url } },
      regions: ['eu-west-1'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 1,
    });
    expect(created.status).toBe(201);
    monitorId = created.body.data.id as string;
    const statusEvents = (s: Stream) => s.events.filter((e) => e.event === 'status');

    await waitFor('the up event', () => Promise.resolve(statusEvents(mine).length >= 1 ? true : undefined), 30_000);
    await target.stop();
    await waitFor('the down event', () => Promise.resolve(statusEvents(mine).length >= 2 ? true : undefined), 30_000);
    const [up, down] = statusEvents(mine);
    expect(up?.data).toMatchObject({ monitor_id: monitorId, status: 'up' });
    expect(down?.data).toMatchObject({ monitor_id: monitorId, status: 'down' });
    // The event carries what the API then says.
    const monitor = (await a.client.get(`/api/monitors/${monitorId}`)).body.data;
    expect(monitor).toMatchObject({ last_status: 'down', last_status_change: down?.data.changed_at });
    // A stream begun now says that change is the newest.
    const later = await stream(a.apiKey);
    await waitFor('the ready event', () => Promise.resolve(later.events.length > 0 ? true : undefined), 5000);
    expect(later.events[0]).toEqual({ event: 'ready', data: { last_status_change: down?.data.changed_at } });
    later.close();
    expect(statusEvents(theirs)).toEqual([]);
    mine.close();
    theirs.close();
    await target.restart();
  });

  it(`takes at most ${MAX_STREAMS_PER_ACCOUNT} streams of one account at once: the next is 429 with Retry-After`, async () => {
    const streams = await Promise.all(Array.from({ length: MAX_STREAMS_PER_ACCOUNT }, () => stream(b.apiKey)));
    expect(streams.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_ACCOUNT).fill(200));
    const refused = await stream(b.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    // Another account is not affected; a closed stream frees its place.
    expect((await stream(a.apiKey)).status).toBe(200);
    streams[0]!.close();
    await waitFor(
      'the freed place',
      async () => {
        const again = await stream(b.apiKey);
        again.close();
        return again.status === 200 ? true : undefined;
      },
      5000,
    );
  });

  it('is declared in the OpenAPI document as an event stream that never ends', async () => {
    const doc = (await c.client().get('/api/openapi.json')).body;
    const op = doc.paths['/api/events'].get;
    expect(op['x-stream']).toBe(true);
    expect(op['x-permission']).toBe('monitors:read');
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
    expect(op.responses['429']).toBeDefined();
    expect(op.responses['503']).toBeDefined();
  });

  it('takes no new stream once the coordinator begins to stop: 503 with Retry-After', async () => {
    const before = await stream(a.apiKey);
    expect(before.status).toBe(200);
    // What a SIGTERM does first (the root module's StoppingMarker): the rest of the shutdown follows it.
    c.app.get(StoppingMarker).onModuleDestroy();
    const refused = await stream(a.apiKey);
    expect(refused.status).toBe(503);
    await refused.ended;
    expect(JSON.parse(refused.body).error.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    // The open stream is ended by the shutdown, which it does not hold up.
    await c.close();
    await before.ended;
  });
});
