import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decode, type Account } from '@nats-io/jwt';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROBE_QUEUE_GROUP, subjectsFor } from '#contracts';
import { NatsLink, type NatsConnection, type NatsSecurity } from '#runtime';
import { NATS_INIT_FILES } from '../../apps/coordinator/src/nats-auth/nats-init.js';
import {
  accountJwtRevoking,
  accountUpdateSubject,
  privateAgentUser,
} from '../../apps/coordinator/src/nats-auth/nats-jwt.js';
import { ConfiguredNats, expectConfinedToPublicWork, expectConfinedToRegion } from '../support/nats-secure.js';
import { startCoordinator } from '../support/coordinator.js';
import { testDatabases, withTestSecretsKey } from '../support/databases.js';
import { runCli } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

/**
 * NATS decentralised (JWT) auth for private regions (docs/decisions/0030-private-regions.md):
 * `npm run cli -- nats init` writes the material and a configuration; a nats-server of this
 * test's own runs it, and real connections show what the server lets each user do.
 */
const binary = ConfiguredNats.binary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the NATS JWT tests need nats-server on this machine (Debian package nats-server)');
}

const subjects = subjectsFor('picket');
const ACCOUNT_A = '65a1b2c3d4e5f60718293a4b';
const ACCOUNT_B = '65a1b2c3d4e5f60718293a4c';
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

(binary ? describe : describe.skip)('NATS JWT auth material from `nats init`', () => {
  let dir: string;
  let files: Record<keyof typeof NATS_INIT_FILES, string>;
  let accountPublicKey: string;
  const server = new ConfiguredNats(binary ?? '');
  let url: string;
  const links: NatsLink[] = [];

  function link(security: NatsSecurity): NatsLink {
    const made = new NatsLink(url, 'nats-jwt-test', quiet, {
      connectTimeoutSeconds: 0,
      onGiveUp: () => undefined,
      security,
    });
    links.push(made);
    made.start();
    return made;
  }

  /**
   * Waits for the server's refusal of `made`. An attempt can also fail on the client's own
   * handshake bound ("timeout") when the machine is loaded (CI once saw it); the link retries,
   * and the server's answer must then be the refusal. The link never connects meanwhile.
   */
  async function refusal(made: NatsLink, what: string): Promise<void> {
    const seen = new Set<string>();
    let connected = false;
    await waitFor(what, () => {
      connected ||= made.connected;
      if (made.lastError) seen.add(made.lastError);
      return Promise.resolve(made.lastError === 'Authorization Violation' ? true : undefined);
    });
    expect(connected).toBe(false);
    // Nothing but the refusal and the client's own timeout may have been reported.
    expect([...seen].filter((e) => e !== 'Authorization Violation' && e !== 'timeout')).toEqual([]);
  }

  /** Creds of account A's `office` agent (or `accountId`'s `region`), written beside the material. */
  async function agentCreds(name: string, expiresAt?: Date, accountId = ACCOUNT_A, region = 'office') {
    const user = await privateAgentUser({
      prefix: 'picket',
      accountId,
      region,
      name,
      accountPublicKey,
      signingSeed: readFileSync(files.accountSigningSeed, 'utf8'),
      ...(expiresAt ? { expiresAt } : {}),
    });
    const path = join(dir, `${name}.creds`);
    writeFileSync(path, user.creds, { mode: 0o600 });
    return { ...user, path };
  }

  beforeAll(async () => {
    dir = join(mkdtempSync(join(tmpdir(), 'picket-nats-jwt-')), 'nats');
    const run = await runCli(['nats', 'init', '--dir', dir]);
    expect(run).toMatchObject({ code: 0 });
    const printed = JSON.parse(run.stdout) as Record<string, string>;
    accountPublicKey = printed.account_public_key!;
    files = Object.fromEntries(
      Object.entries(NATS_INIT_FILES).map(([role, name]) => [role, join(dir, name)]),
    ) as typeof files;
    const port = await server.pickPort();
    await server.start(files.config, {});
    url = `nats://127.0.0.1:${port}`;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(links.map((l) => l.close().catch(() => undefined)));
    await server.stop();
    if (dir) rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('writes every file for its owner alone, prints the public keys, and refuses to overwrite', async () => {
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const [role, path] of Object.entries(files)) {
      expect([role, statSync(path).mode & 0o777]).toEqual([role, role === 'resolverDir' ? 0o700 : 0o600]);
    }
    expect(accountPublicKey).toMatch(/^A[A-Z2-7]{55}$/);
    expect(readFileSync(files.accountSigningSeed, 'utf8')).toMatch(/^SA[A-Z2-7]{56}\n$/);
    expect(readFileSync(files.coordinatorCreds, 'utf8')).toContain('-----BEGIN NATS USER JWT-----');
    const before = readFileSync(files.coordinatorCreds, 'utf8');
    const again = await runCli(['nats', 'init', '--dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('refusing to overwrite');
    expect(readFileSync(files.coordinatorCreds, 'utf8')).toBe(before);
  }, 240_000);

  it("connects the coordinator's creds, and confines an agent of account A's office to its region", async () => {
    const coordinator = await link({ credsFile: files.coordinatorCreds }).whenConnected();
    const agent = await agentCreds('office-a-1');
    const nc: NatsConnection = await link({ credsFile: agent.path }).whenConnected();

    // Its own work in the queue group arrives and is answered; its heartbeat is heard.
    nc.subscribe(subjects.privateProbe(ACCOUNT_A, 'office'), {
      queue: PROBE_QUEUE_GROUP,
      callback: (_e, msg) => void msg.respond('done'),
    });
    const beat = new Promise<string>((resolve) => {
      coordinator.subscribe(subjects.privateHeartbeats, { max: 1, callback: (_e, msg) => resolve(msg.subject) });
    });
    await coordinator.flush();
    await nc.flush();
    const reply = await coordinator.request(subjects.privateProbe(ACCOUNT_A, 'office'), '{}', { timeout: 5000 });
    expect(reply.string()).toBe('done');
    nc.publish(subjects.privateHeartbeat(ACCOUNT_A, 'office'), '{}');
    await expect(beat).resolves.toBe(subjects.privateHeartbeat(ACCOUNT_A, 'office'));

    // The server refuses it a public region, account B's office, work outside the queue group,
    // other heartbeats, its own region's work, and replies it was not asked for.
    await expectConfinedToRegion(nc, 'picket', ACCOUNT_A, ACCOUNT_B, 'office');
  });

  it("connects the public agents' creds to every public region's work and refuses them private regions'", async () => {
    const coordinator = await link({ credsFile: files.coordinatorCreds }).whenConnected();
    const nc: NatsConnection = await link({ credsFile: files.publicAgentCreds }).whenConnected();
    nc.subscribe('picket.probe.*', {
      queue: PROBE_QUEUE_GROUP,
      callback: (_e, msg) => void msg.respond(msg.subject),
    });
    const beat = new Promise<string>((resolve) => {
      coordinator.subscribe(subjects.heartbeat, { max: 1, callback: (_e, msg) => resolve(msg.subject) });
    });
    await coordinator.flush();
    await nc.flush();
    for (const region of ['eu-west-1', 'ap-southeast-2'] as const) {
      const reply = await coordinator.request(subjects.probe(region), '{}', { timeout: 5000 });
      expect(reply.string()).toBe(subjects.probe(region));
    }
    nc.publish(subjects.heartbeat, '{}');
    await expect(beat).resolves.toBe(subjects.heartbeat);
    await expectConfinedToPublicWork(nc, 'picket', ACCOUNT_A);
  });

  it('nats public-agent-creds makes new shared creds for public agents that take batches, and never overwrites', async () => {
    const out = join(dir, 'agent-again.creds');
    const env = { ...process.env, NATS_SUBJECT_PREFIX: undefined };
    const run = await runCli(['nats', 'public-agent-creds', '--dir', dir, '--out', out], env);
    expect(run).toMatchObject({ code: 0 });
    expect(JSON.parse(run.stdout)).toEqual({
      prefix: 'picket',
      creds: out,
      user_public_key: expect.stringMatching(/^U[A-Z2-7]{55}$/),
    });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const coordinator = await link({ credsFile: files.coordinatorCreds }).whenConnected();
    const nc: NatsConnection = await link({ credsFile: out }).whenConnected();
    // A batch of a public region reaches it in the agents' queue group, and it may answer.
    nc.subscribe('picket.probe.*.batch', {
      queue: PROBE_QUEUE_GROUP,
      callback: (_e, msg) => void msg.respond(msg.subject),
    });
    await nc.flush();
    const reply = await coordinator.request(subjects.probeBatch('eu-west-1'), '{}', { timeout: 5000 });
    expect(reply.string()).toBe(subjects.probeBatch('eu-west-1'));
    await expectConfinedToPublicWork(nc, 'picket', ACCOUNT_A);

    const before = readFileSync(out, 'utf8');
    const again = await runCli(['nats', 'public-agent-creds', '--dir', dir, '--out', out], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('refusing to overwrite');
    expect(readFileSync(out, 'utf8')).toBe(before);
    const nowhere = await runCli(['nats', 'public-agent-creds', '--dir', join(dir, 'none'), '--out', `${out}.2`], env);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('run nats init --dir');
  }, 60_000);

  it("nats agent-creds writes a private agent's creds for a region the account owns, confined to it", async () => {
    const db = await testDatabases()[0]!.create();
    const c = await startCoordinator(db.url);
    try {
      const { accountId, client } = await c.newAccount('jwt');
      expect((await client.post('/api/regions', { id: 'office', name: 'Office' })).status).toBe(201);
      const env = withTestSecretsKey({ ...process.env, DATABASE_URL: db.url });
      const out = join(dir, 'office-cli.creds');
      const args = (region: string, agent: string, file = out) => [
        'nats',
        'agent-creds',
        '--dir',
        dir,
        '--account',
        accountId,
        '--region',
        region,
        '--agent',
        agent,
        '--out',
        file,
      ];
      const issued = await runCli(args('office', 'office-cli-1'), env);
      expect({ code: issued.code, stderr: issued.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(issued.stdout)).toEqual({
        agent: 'office-cli-1',
        account_id: accountId,
        region: 'office',
        user_public_key: expect.stringMatching(/^U[A-Z2-7]{55}$/),
        creds: out,
      });
      expect(statSync(out).mode & 0o777).toBe(0o600);

      const coordinator = await link({ credsFile: files.coordinatorCreds }).whenConnected();
      const nc: NatsConnection = await link({ credsFile: out }).whenConnected();
      nc.subscribe(subjects.privateProbe(accountId, 'office'), {
        queue: PROBE_QUEUE_GROUP,
        callback: (_e, msg) => void msg.respond('done'),
      });
      await nc.flush();
      const reply = await coordinator.request(subjects.privateProbe(accountId, 'office'), '{}', { timeout: 5000 });
      expect(reply.string()).toBe('done');
      await expectConfinedToRegion(nc, 'picket', accountId, ACCOUNT_B, 'office');

      // Refused: a region the account does not own, an existing file, a bad agent id.
      const refusals = await Promise.all([
        runCli(args('lab', 'lab-1', join(dir, 'lab.creds')), env),
        runCli(args('office', 'office-cli-2'), env),
        runCli(args('office', 'no spaces', join(dir, 'bad.creds')), env),
      ]);
      expect(refusals.map((r) => [r.code, r.stdout])).toEqual([
        [1, ''],
        [1, ''],
        [2, ''],
      ]);
      expect(refusals[0].stderr).toContain('has no private region "lab"');
      expect(refusals[1].stderr).toContain('refusing to overwrite');
      expect(refusals[2].stderr).toContain('--agent');
    } finally {
      await c.close();
      await db.drop();
    }
  }, 120_000);

  it('refuses an expired agent JWT, and connects the same user before its expiry', async () => {
    const expired = await agentCreds('office-a-expired', new Date(Date.now() - 60_000));
    const refused = link({ credsFile: expired.path });
    await refusal(refused, 'the refusal');
    expect(refused.connected).toBe(false);
    const valid = await agentCreds('office-a-valid', new Date(Date.now() + 3_600_000));
    await expect(link({ credsFile: valid.path }).whenConnected()).resolves.toBeDefined();
  });

  it('nats revoke saves the revocation in the account JWT, pushes it, and the agent is disconnected and refused', async () => {
    const agent = await agentCreds('office-a-cli-revoked');
    const revoked = link({ credsFile: agent.path });
    await revoked.whenConnected();
    const env = { ...process.env, NATS_URL: url };
    const bad = await runCli(['nats', 'revoke', '--dir', dir, '--user', 'not-a-key'], env);
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    const run = await runCli(['nats', 'revoke', '--dir', dir, '--user', agent.publicKey], env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      revoked: agent.publicKey,
      account_public_key: accountPublicKey,
      pushed: true,
    });
    await waitFor('the revoked agent to be disconnected', async () => (revoked.connected ? undefined : true));
    const again = link({ credsFile: agent.path });
    await refusal(again, 'a new connection to be refused');
    // Saved where the next revocation starts from.
    const saved = decode<Account>(readFileSync(files.accountJwt, 'utf8').trim());
    expect(Object.keys(saved.nats.revocations ?? {})).toContain(agent.publicKey);
    expect(statSync(files.accountJwt).mode & 0o777).toBe(0o600);
  });

  it('disconnects a revoked agent once the account JWT listing it is pushed, and refuses it afterwards', async () => {
    const agent = await agentCreds('office-a-revoked');
    const revoked = link({ credsFile: agent.path });
    await revoked.whenConnected();
    const other = await agentCreds('office-a-kept');
    const kept = link({ credsFile: other.path });
    await kept.whenConnected();

    const system = await link({ credsFile: files.systemCreds }).whenConnected();
    const updated = await accountJwtRevoking(
      readFileSync(files.accountJwt, 'utf8').trim(),
      readFileSync(files.operatorSigningSeed, 'utf8'),
      { [agent.publicKey]: Math.floor(Date.now() / 1000) },
    );
    const answer = await system.request(accountUpdateSubject(accountPublicKey), updated, { timeout: 5000 });
    expect(answer.json()).toMatchObject({ data: { code: 200 } });
    await waitFor('the revoked agent to be disconnected', async () => (revoked.connected ? undefined : true));
    await waitFor('its reconnection to be refused', async () =>
      /Authorization Violation/.test(revoked.lastError ?? '') ? true : undefined,
    );
    const again = link({ credsFile: agent.path });
    await refusal(again, 'a new connection to be refused');
    expect([revoked.connected, again.connected, kept.connected]).toEqual([false, false, true]);
  });
});
