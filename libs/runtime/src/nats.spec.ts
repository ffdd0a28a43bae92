import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, natsServerBinary, PrivateNats } from '../../../test/support/faults.js';
import { waitFor } from '../../../test/support/wait.js';
import { natsClientOptions, NatsLink, urlCredentials, type NatsLinkOptions } from './nats.js';

describe('natsClientOptions (docs/decisions/0019-securing-nats.md)', () => {
  it.each([
    ['plain nats:// stays as it was', 'nats://127.0.0.1:4222', {}, { servers: ['nats://127.0.0.1:4222'] }],
    [
      'a user and password in the URL',
      'nats://picket:p%40ss@h:4222, nats://h2:4222',
      {},
      { servers: ['nats://h:4222', 'nats://h2:4222'], user: 'picket', pass: 'p@ss' },
    ],
    ['a token in the URL', 'nats://s3cr3t@h:4222', {}, { servers: ['nats://h:4222'], token: 's3cr3t' }],
    ['tls:// turns TLS on', 'tls://h:4222,tls://h2:4222', {}, { servers: ['tls://h:4222', 'tls://h2:4222'], tls: {} }],
    [
      'a CA file turns TLS on for nats://',
      'nats://h:4222',
      { caFile: '/ca.crt' },
      { servers: ['nats://h:4222'], tls: { caFile: '/ca.crt' } },
    ],
    [
      'a client certificate turns TLS on',
      'nats://h:4222',
      { certFile: '/c.crt', keyFile: '/c.key' },
      { servers: ['nats://h:4222'], tls: { certFile: '/c.crt', keyFile: '/c.key' } },
    ],
    [
      'NATS_USER/NATS_PASSWORD',
      'tls://h:4222',
      { user: 'agent', pass: 'x', caFile: '/ca.crt' },
      { servers: ['tls://h:4222'], user: 'agent', pass: 'x', tls: { caFile: '/ca.crt' } },
    ],
    ['NATS_TOKEN', 'nats://h:4222', { token: 't' }, { servers: ['nats://h:4222'], token: 't' }],
  ] as const)('%s', (_name, servers, security, expected) => {
    expect(natsClientOptions(servers, security)).toEqual(expected);
  });

  it('signs with the creds file through an authenticator, read when the client connects', () => {
    const options = natsClientOptions('tls://h:4222', { credsFile: '/nonexistent/user.creds' });
    expect(options).toMatchObject({ servers: ['tls://h:4222'], tls: {} });
    expect(typeof options.authenticator).toBe('function');
    expect(() => (options.authenticator as (nonce?: string) => unknown)('nonce')).toThrow(/ENOENT/);
  });

  it('reads the credentials of the first entry that has any', () => {
    expect(urlCredentials('nats://h1:4222,nats://a:b@h2:4222,nats://t@h3')).toEqual({ user: 'a', pass: 'b' });
    expect(urlCredentials('nats://h1:4222')).toEqual({});
  });
});

/** Everything a link logged, as "level: message". */
class Lines {
  readonly all: string[] = [];
  readonly logger = {
    log: (m: string) => this.all.push(`log: ${m}`),
    warn: (m: string) => this.all.push(`warn: ${m}`),
    error: (m: string) => this.all.push(`error: ${m}`),
  };
  matching(pattern: RegExp): string[] {
    return this.all.filter((line) => pattern.test(line));
  }
}

const binary = natsServerBinary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the NatsLink tests need nats-server on this machine (Debian package nats-server)');
}
if (!binary) process.stderr.write('[picket tests] SKIPPING the NatsLink tests: no nats-server on this machine.\n');

(binary ? describe : describe.skip)('NatsLink against a closed port, then a private nats-server', () => {
  const links: NatsLink[] = [];
  const servers: PrivateNats[] = [];
  const children: ChildProcess[] = [];

  function link(url: string, lines: Lines, options: Partial<NatsLinkOptions> = {}): NatsLink {
    const created = new NatsLink(url, 'link-test', lines.logger, {
      connectTimeoutSeconds: 0,
      onGiveUp: () => undefined,
      ...options,
    });
    links.push(created);
    return created;
  }

  afterEach(async () => {
    await Promise.all(links.splice(0).map((l) => l.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('says at once where it connects (credentials masked), logs each failure with its reason, connects when the server starts', async () => {
    const nats = new PrivateNats(binary!);
    servers.push(nats);
    nats.port = await freePort();
    const lines = new Lines();
    const l = link(`nats://picket:hunter2@127.0.0.1:${nats.port}`, lines);
    const connectedAt: string[] = [];
    l.onConnected((nc) => connectedAt.push(nc.getServer()));
    const waiting = l.whenConnected();

    l.start();
    // Synchronously, before any attempt could have failed or succeeded.
    expect(lines.all).toEqual([`log: connecting to NATS nats://picket:***@127.0.0.1:${nats.port}`]);
    expect({ state: l.state, connected: l.connected, connection: l.connection }).toEqual({
      state: 'connecting',
      connected: false,
      connection: null,
    });

    await waitFor('two failed attempts', async () => (lines.matching(/not reachable/).length >= 2 ? true : undefined));
    expect(lines.matching(/not reachable/)[0]).toBe(
      `warn: NATS nats://picket:***@127.0.0.1:${nats.port} not reachable: connection refused (ECONNREFUSED); ` +
        `next attempt in 0.5 s`,
    );
    expect(lines.matching(/not reachable/)[1]).toMatch(/ECONNREFUSED\); next attempt in 1 s$/);
    expect(l.lastError).toBe('connection refused (ECONNREFUSED)');
    expect(l.problemNow).toBe('connecting: connection refused (ECONNREFUSED)');
    expect(lines.all.join('\n')).not.toContain('hunter2');

    await nats.start(); // a server without authentication accepts the credentials
    const nc = await waiting;
    expect({ state: l.state, connected: l.connected, lastError: l.lastError }).toEqual({
      state: 'connected',
      connected: true,
      lastError: null,
    });
    expect(l.problemNow).toBeNull();
    expect(l.connection).toBe(nc);
    expect(connectedAt).toEqual([`127.0.0.1:${nats.port}`]);
    expect(lines.all.at(-1)).toBe(`log: connected to NATS 127.0.0.1:${nats.port}`);
    // Late subscribers are called at once.
    const late: unknown[] = [];
    l.onConnected((c) => late.push(c));
    expect(late).toEqual([nc]);
  });

  it('is connected only while the server is up: false while it is stopped, true again after its restart', async () => {
    const nats = await new PrivateNats(binary!).start();
    servers.push(nats);
    const lines = new Lines();
    const l = link(nats.url, lines);
    l.start();
    const nc = await l.whenConnected();
    const received: string[] = [];
    nc.subscribe('link.test', {
      callback: (_e, msg) => {
        received.push(msg.string());
      },
    });

    await nats.stop();
    await waitFor('the link to notice the outage', async () => (l.connected ? undefined : true));
    expect({ state: l.state, lastError: l.lastError }).toEqual({
      state: 'reconnecting',
      lastError: `connection to 127.0.0.1:${nats.port} lost`,
    });
    expect(l.problemNow).toBe(`reconnecting: connection to 127.0.0.1:${nats.port} lost`);
    expect(lines.all).toContain(`warn: NATS connection lost (127.0.0.1:${nats.port}); reconnecting`);

    await nats.start();
    await waitFor('the link to reconnect', async () => (l.connected ? true : undefined));
    expect({ state: l.state, lastError: l.lastError, same: l.connection === nc }).toEqual({
      state: 'connected',
      lastError: null,
      same: true,
    });
    expect(lines.all).toContain(`log: NATS reconnected (127.0.0.1:${nats.port})`);
    // The subscription made on the first connection was renewed by the client.
    await waitFor('a message on the renewed subscription', async () => {
      nc.publish('link.test', 'after restart');
      await nc.flush();
      return received.length > 0 ? true : undefined;
    });

    await l.drain();
    expect({ state: l.state, connected: l.connected }).toEqual({ state: 'closed', connected: false });
  });

  it('gives up after connectTimeoutSeconds with a message naming the masked URL and NATS_CONNECT_TIMEOUT_SECONDS', async () => {
    const port = await freePort();
    const lines = new Lines();
    const gaveUp: string[] = [];
    const l = link(`nats://picket:hunter2@127.0.0.1:${port}`, lines, {
      connectTimeoutSeconds: 1,
      onGiveUp: (message) => gaveUp.push(message),
    });
    const waiting = l.whenConnected();
    l.start();
    await expect(waiting).rejects.toThrow(/closed before it connected/);
    expect(gaveUp).toEqual([
      `gave up connecting to NATS nats://picket:***@127.0.0.1:${port} after 1 s ` +
        `(last error: connection refused (ECONNREFUSED)); check NATS_URL and that the server is reachable from ` +
        `here, or raise NATS_CONNECT_TIMEOUT_SECONDS (0 keeps trying for ever)`,
    ]);
    expect(l.state).toBe('closed');
    // No attempt after giving up, even once a server is there.
    const attempts = lines.matching(/not reachable/).length;
    const nats = new PrivateNats(binary!);
    nats.port = port;
    servers.push(await nats.start());
    await new Promise((r) => setTimeout(r, 1200)); // longer than the next retry would have waited
    expect(lines.matching(/not reachable/)).toHaveLength(attempts);
    expect(l.connection).toBeNull();
  });

  it('authenticates with the credentials in the URL and logs an authorization failure as the reason', async () => {
    const port = await freePort();
    const server = spawn(binary!, ['-a', '127.0.0.1', '-p', String(port), '--user', 'picket', '--pass', 'hunter2'], {
      stdio: 'ignore',
    });
    children.push(server);
    const lines = new Lines();
    const wrong = link(`nats://picket:wrong@127.0.0.1:${port}`, lines);
    wrong.start();
    await waitFor('an authorization failure', async () =>
      lines.matching(/Authorization Violation/).length > 0 ? true : undefined,
    );
    expect(lines.matching(/not reachable/).at(-1)).toMatch(
      new RegExp(`^warn: NATS nats://picket:\\*\\*\\*@127\\.0\\.0\\.1:${port} not reachable: Authorization Violation;`),
    );
    expect(wrong.lastError).toBe('Authorization Violation');

    const right = link(`nats://picket:hunter2@127.0.0.1:${port}`, new Lines());
    right.start();
    await right.whenConnected();
    expect(right.connected).toBe(true);
  });

  it('stops a pending connect loop on close and drain: no attempt after, waiters rejected', async () => {
    const lines = new Lines();
    const l = link(`nats://127.0.0.1:${await freePort()}`, lines);
    const waiting = l.whenConnected();
    l.start();
    await waitFor('a failed attempt', async () => (lines.matching(/not reachable/).length > 0 ? true : undefined));
    await l.drain();
    await expect(waiting).rejects.toThrow(/closed before it connected/);
    expect(l.state).toBe('closed');
    await expect(l.whenConnected()).rejects.toThrow(/closed before it connected/);
    const attempts = lines.matching(/not reachable/).length;
    await new Promise((r) => setTimeout(r, 800)); // longer than the next retry would have waited
    expect(lines.matching(/not reachable/)).toHaveLength(attempts);
    l.start(); // a closed link does not start again
    expect(lines.matching(/connecting to NATS/)).toHaveLength(1);
  });
});
