import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createUser, decode, fmtCreds, type User } from '@nats-io/jwt';
import { connect, jwtAuthenticator, credsAuthenticator } from '@nats-io/transport-node';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { enrollInboxPrefix, enrollTokenUser, subjectsFor, type EnrollReply } from '#contracts';
import { loadAgentConfig } from '../../apps/agent/src/config.js';
import { enrollAgent } from '../../apps/agent/src/enrollment.js';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { CheckResultEntity } from '../../apps/coordinator/src/history/check-result.entity.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { enrollmentTokenJwt } from '../../apps/coordinator/src/nats-auth/nats-jwt.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { ConfiguredNats, expectConfinedToRegion, startJwtNats, type JwtNats } from '../support/nats-secure.js';
import { startPicket, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/**
 * Enrollment of private regions' agents (docs/decisions/0030-private-regions.md), against a
 * nats-server of this test's own in decentralised (JWT) mode from `nats init`
 * (test/e2e/nats-jwt.spec.ts runs that command itself): a one-time token
 * from the API, exchanged by a real agent for credentials confined to its region, checks run and
 * confirmed across a public and the private region, revocation through the API, and a region's
 * deletion revoking its agents.
 */
const binary = ConfiguredNats.binary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the enrollment tests need nats-server on this machine (Debian package nats-server)');
}

const quiet = { log: () => undefined, warn: () => undefined };

(binary ? describe : describe.skip)('agent enrollment with NATS JWT auth', () => {
  let nats: JwtNats;
  let dir: string;
  let files: JwtNats['files'];
  let url: string;
  let db: TestDatabase;
  let c: RunningCoordinator;
  let a: ApiClient;
  let aId: string;
  let b: ApiClient;
  let bId: string;
  const target = new SwitchableTarget();
  const agents: RunningProcess[] = [];
  let officeAgentId: string;
  let officeAgent: RunningProcess;
  let monitorId: string;

  const agentEnv = (env: Record<string, string>) => ({
    NATS_URL: url,
    AGENT_HTTP_PORT: '0',
    AGENT_HEARTBEAT_SECONDS: '1',
    AGENT_DRAIN_SECONDS: '1',
    ...env,
  });
  const newToken = async (client: ApiClient, region: string) => {
    const res = await client.post(`/api/regions/${region}/agent_tokens`, {});
    expect(res.status).toBe(201);
    return res.body.data.token as string;
  };
  const checks = async () => {
    await c.app.get(ResultsWriter).flush();
    return (await a.get(`/api/monitors/${monitorId}/checks?per_page=100`)).body.data.checks as {
      region: string;
      status: string;
      error: string | null;
      checked_at: number;
    }[];
  };
  /** Enrolls like an agent, in this process: the token's connection, a request, the answer. */
  const enrollDirectly = async (token: string, region = 'office') => {
    const user = createUser();
    const nc = await connect({
      servers: url,
      authenticator: jwtAuthenticator(token),
      inboxPrefix: enrollInboxPrefix(enrollTokenUser(token)!),
    });
    try {
      const answer = await nc.request(
        subjectsFor('picket').enroll,
        JSON.stringify({ token, public_key: user.getPublicKey(), agent_id: 'direct', account_id: aId, region }),
        { timeout: 5000 },
      );
      return { reply: answer.json<EnrollReply>(), creds: (jwt: string) => fmtCreds(jwt, user) };
    } finally {
      await nc.close();
    }
  };

  beforeAll(async () => {
    nats = await startJwtNats();
    ({ dir, files, url } = nats);
    await target.start();
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true', ...nats.coordinatorEnv } });
    const first = await c.newAccount('a');
    a = first.client;
    aId = first.accountId;
    const second = await c.newAccount('b');
    b = second.client;
    bId = second.accountId;
    for (const [client, id] of [
      [a, 'office'],
      [a, 'lab'],
      [b, 'office'],
    ] as const) {
      expect((await client.post('/api/regions', { id, name: id })).status).toBe(201);
    }
    // A public agent with the user `nats init` wrote for them.
    agents.push(
      startPicket(
        'agent',
        agentEnv({ AGENT_ID: 'public-eu', AGENT_REGIONS: 'eu-west-1', NATS_CREDS_FILE: files.publicAgentCreds }),
      ),
    );
  }, 240_000);

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.kill('SIGKILL')));
    await c?.close();
    await nats?.stop();
    await target.stop();
    await db?.drop();
  });

  it('creates one-time tokens for the account’s own regions only, with regions:write', async () => {
    const res = await a.post('/api/regions/office/agent_tokens', {});
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data).toEqual({
      token: expect.any(String),
      account_id: aId,
      region: 'office',
      created_at: expect.any(Number),
      expires_at: data.created_at + 24 * 3600,
    });
    // A bearer JWT of the Picket account, allowed to ask for enrollment and read its own answer.
    const claims = decode<User>(data.token);
    expect(claims.exp).toBe(data.expires_at);
    expect(claims.nats).toMatchObject({
      bearer_token: true,
      pub: { allow: ['picket.agents.enroll'] },
      sub: { allow: [`${enrollInboxPrefix(claims.sub)}.>`] },
    });
    // Account B has no `lab`: the same 404 as an unknown region; public ids are not private regions.
    const foreign = await b.post('/api/regions/lab/agent_tokens', {});
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('REGION_NOT_FOUND');
    expect((await a.post('/api/regions/eu-west-1/agent_tokens', {})).status).toBe(404);
    const reader = (await c.newKey(aId, ['regions:read'])).client;
    expect((await reader.post('/api/regions/office/agent_tokens', {})).status).toBe(403);
    expect((await reader.get('/api/regions/office/agents')).body.data).toEqual({ agents: [] });
  });

  it('an agent enrolls with a token, keeps its credentials 0600, and runs the region’s checks with the public region', async () => {
    const credsFile = join(dir, '..', 'office-1.creds');
    const agent = startPicket(
      'agent',
      agentEnv({
        AGENT_ID: 'office-1',
        AGENT_PRIVATE_REGION: `${aId}/office`,
        AGENT_ENROLL_TOKEN: await newToken(a, 'office'),
        NATS_CREDS_FILE: credsFile,
      }),
    );
    agents.push(agent);
    officeAgent = agent;
    const listed = await waitFor(
      'the enrolled agent online',
      async () => {
        const found = (await a.get('/api/regions/office/agents')).body.data.agents as {
          id: string;
          public_key: string;
          online: boolean;
        }[];
        return found.length === 1 && found[0]!.online ? found : undefined;
      },
      120_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${agent.output()}`);
    });
    expect(listed[0]).toEqual({
      id: expect.any(String),
      name: 'office-1',
      public_key: expect.stringMatching(/^U[A-Z2-7]{55}$/),
      enrolled_at: expect.any(Number),
      online: true,
    });
    officeAgentId = listed[0]!.id;
    expect(statSync(credsFile).mode & 0o777).toBe(0o600);
    const creds = readFileSync(credsFile, 'utf8');
    expect(creds).toContain('-----BEGIN USER NKEY SEED-----');
    // The seed was made by the agent: the coordinator only ever saw the public key.
    expect(decode(creds.split('\n')[1]!).sub).toBe(listed[0]!.public_key);
    const seed = creds.split('\n').find((line) => line.startsWith('SU'));
    expect(seed).toMatch(/^SU[A-Z2-7]+$/);
    expect(agent.output()).not.toContain(seed!);
    expect((await a.get('/api/regions/office')).body.data.agents_online).toBe(1);

    const created = await a.post('/api/monitors', {
      name: 'intranet',
      settings: { https: { url: target.url } },
      regions: ['eu-west-1', 'office'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
    });
    expect(created.status).toBe(201);
    monitorId = created.body.data.id;
    await waitFor('UP results from both regions', async () => {
      const up = (await checks()).filter((check) => check.status === 'up');
      return new Set(up.map((check) => check.region)).size === 2 ? true : undefined;
    });
    const office = await c.app.get(Database).manager.findBy(CheckResultEntity, { monitorId, region: 'office' });
    expect(new Set(office.map((r) => r.agentId))).toEqual(new Set(['office-1']));
    // An outage is confirmed across both.
    await target.stop();
    await waitFor('last_status down', async () =>
      (await a.get(`/api/monitors/${monitorId}`)).body.data.last_status === 'down' ? true : undefined,
    );
    const downs = (await checks()).filter((check) => check.status === 'down');
    expect(new Set(downs.map((check) => check.region))).toEqual(new Set(['eu-west-1', 'office']));
    await target.restart();
  });

  it('a token works once; a used, unknown or expired one enrolls nobody and writes nothing', async () => {
    const token = await newToken(a, 'office');
    const first = await enrollDirectly(token);
    expect(first.reply).toMatchObject({ ok: true, account_id: aId, region: 'office' });
    // The credentials it got are the server's business to confine: its region's work alone.
    const confined = await connect({
      servers: url,
      authenticator: credsAuthenticator(first.creds((first.reply as { jwt: string }).jwt)),
    });
    try {
      await expectConfinedToRegion(confined, 'picket', aId, bId, 'office');
    } finally {
      await confined.close();
    }
    const again = await enrollDirectly(token);
    expect(again.reply).toEqual({ ok: false, error: 'the enrollment token was already used; create a new one' });

    const config = (credsFile: string, enrollToken: string) =>
      loadAgentConfig({
        NATS_URL: url,
        AGENT_ID: 'office-late',
        AGENT_PRIVATE_REGION: `${aId}/office`,
        AGENT_ENROLL_TOKEN: enrollToken,
        NATS_CREDS_FILE: credsFile,
        NATS_CONNECT_TIMEOUT_SECONDS: '20',
      });
    const usedFile = join(dir, '..', 'used.creds');
    await expect(enrollAgent(config(usedFile, token), quiet)).rejects.toThrow(
      'enrollment refused: the enrollment token was already used; create a new one',
    );
    expect(existsSync(usedFile)).toBe(false);

    // Expired: NATS itself refuses the connection.
    const expired = await enrollmentTokenJwt({
      prefix: 'picket',
      name: 'expired',
      accountPublicKey: decode(readFileSync(files.accountJwt, 'utf8').trim()).sub,
      signingSeed: readFileSync(files.accountSigningSeed, 'utf8'),
      expiresAt: new Date(Date.now() - 60_000),
    });
    await expect(enrollAgent(config(join(dir, '..', 'expired.creds'), expired), quiet)).rejects.toThrow(
      /NATS refused the enrollment token/,
    );
    // Validly signed but never issued by the API: the coordinator does not know it.
    const unissued = await enrollmentTokenJwt({
      prefix: 'picket',
      name: 'unissued',
      accountPublicKey: decode(readFileSync(files.accountJwt, 'utf8').trim()).sub,
      signingSeed: readFileSync(files.accountSigningSeed, 'utf8'),
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect((await enrollDirectly(unissued)).reply).toMatchObject({ ok: false, error: /not known/ });
    // A token for account A's office given to an agent configured for another region is refused.
    // A token for account A's office given to an agent configured for another region is refused,
    // and stays usable by the right one.
    const officeToken = await newToken(a, 'office');
    await expect(
      enrollAgent(
        loadAgentConfig({
          NATS_URL: url,
          AGENT_PRIVATE_REGION: `${aId}/lab`,
          AGENT_ENROLL_TOKEN: officeToken,
          NATS_CREDS_FILE: join(dir, '..', 'wrong.creds'),
        }),
        quiet,
      ),
    ).rejects.toThrow(`enrollment refused: the token is for ${aId}/office, not AGENT_PRIVATE_REGION ${aId}/lab`);
    expect(existsSync(join(dir, '..', 'wrong.creds'))).toBe(false);
    const listed = (await a.get('/api/regions/office/agents')).body.data.agents as { name: string }[];
    expect(listed.map((agent) => agent.name)).toEqual(['office-1', 'direct']);
    expect((await enrollDirectly(officeToken)).reply).toMatchObject({ ok: true });
  });

  it('another account can neither list nor revoke the agents', async () => {
    expect((await b.get('/api/regions/lab/agents')).status).toBe(404);
    // B's own `office` is another region: A's agent is not in it.
    const revoke = await b.delete(`/api/regions/office/agents/${officeAgentId}`);
    expect(revoke.status).toBe(404);
    expect(revoke.body.error).toEqual({ code: 'NOT_FOUND', message: 'Agent not found.' });
    expect((await a.delete('/api/regions/office/agents/not-an-id')).status).toBe(404);
  });

  it('a revoked agent is disconnected, cannot reconnect, and its region turns UNKNOWN, never DOWN', async () => {
    const credsFile = join(dir, '..', 'office-1.creds');
    const before = officeAgent.output().length;
    const res = await a.delete(`/api/regions/office/agents/${officeAgentId}`);
    expect(res.status).toBe(204);
    const since = Date.now();
    await waitFor('the agent to be told it is no longer authorised', async () =>
      /authori[sz]ation violation|revoked|disconnected/i.test(officeAgent.output().slice(before)) ? true : undefined,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${officeAgent.output()}`);
    });
    const left = (await a.get('/api/regions/office/agents')).body.data.agents as { name: string }[];
    expect(left.map((agent) => agent.name)).toEqual(['direct', 'direct']);
    await target.stop(); // a real outage: the public region sees it, the blind private one must not
    const unknown = await waitFor('an UNKNOWN office result after the revocation', async () =>
      (await checks()).find(
        (check) => check.region === 'office' && check.status === 'unknown' && check.checked_at * 1000 >= since + 2000,
      ),
    );
    expect(unknown.error).toBe('no agent serves region office');
    const after = (await checks()).filter(
      (check) => check.region === 'office' && check.checked_at * 1000 >= since + 2000,
    );
    expect(after.every((check) => check.status === 'unknown')).toBe(true);
    await expect(
      connect({ servers: url, authenticator: credsAuthenticator(readFileSync(credsFile)), reconnect: false }),
    ).rejects.toThrow(/Authorization Violation/i);
    // Repeating the request pushes the revocation again.
    expect((await a.delete(`/api/regions/office/agents/${officeAgentId}`)).status).toBe(204);
    await target.restart();
  });

  it('deleting a region revokes its agents and drops its unused tokens', async () => {
    const direct = await enrollDirectly(await newToken(a, 'lab'), 'lab');
    expect(direct.reply.ok).toBe(true);
    const unused = await newToken(a, 'lab');
    const jwt = (direct.reply as { jwt: string }).jwt;
    const nc = await connect({ servers: url, authenticator: credsAuthenticator(direct.creds(jwt)) });
    const closed = nc.closed();
    expect((await a.delete('/api/regions/lab')).status).toBe(204);
    await closed; // the server closed it
    await expect(
      connect({ servers: url, authenticator: credsAuthenticator(direct.creds(jwt)), reconnect: false }),
    ).rejects.toThrow(/Authorization Violation/i);
    expect((await a.post('/api/regions', { id: 'lab', name: 'lab again' })).status).toBe(201);
    expect((await enrollDirectly(unused, 'lab')).reply).toMatchObject({ ok: false, error: /not known/ });
  });

  it('without NATS_AUTH_DIR, tokens are refused with 503 and a reason', async () => {
    const plain = await startCoordinator(db.url);
    try {
      const res = await plain.client((await plain.newAccount('c')).apiKey).post('/api/regions/office/agent_tokens', {});
      expect(res.status).toBe(404); // account c has no office
      const own = await plain.newAccount('d');
      expect((await own.client.post('/api/regions', { id: 'office', name: 'o' })).status).toBe(201);
      const refused = await own.client.post('/api/regions/office/agent_tokens', {});
      expect(refused.status).toBe(503);
      expect(refused.body.error.message).toContain('NATS_AUTH_DIR');
    } finally {
      await plain.close();
    }
  });
});
