import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { nkeys } from '@nats-io/transport-node';
import { subjectsFor } from '#contracts';
import { connectNats, NatsLink, natsSecurityOf, systemClock, type NatsConnection, type NatsSecurity } from '#runtime';
import { createAgentApp } from '../../apps/agent/src/app.js';
import { loadAgentConfig } from '../../apps/agent/src/config.js';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config.js';
import { startNatsLink } from '../../apps/coordinator/src/probing/nats-connection.js';
import { NatsTransport } from '../../apps/coordinator/src/probing/nats.transport.js';
import { ConfiguredNats, deployedAuthConf, writeNatsPki, type NatsPkiFiles } from '../support/nats-secure.js';
import { probeRequest } from '../support/probe-request.js';
import { waitFor } from '../support/wait.js';

/**
 * NATS secured as deploy/ ships it (docs/decisions/0019-securing-nats.md): a nats-server of this
 * test's own that requires TLS, with the coordinator and agent users and permissions of
 * deploy/nats/picket-auth.conf. The apps connect through their configuration (NATS_* variables)
 * and links, and the agent's probe route answers the coordinator's transport.
 */
const binary = ConfiguredNats.binary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the NATS security tests need nats-server on this machine (Debian package nats-server)');
}
if (!binary) {
  process.stderr.write(
    '[picket tests] SKIPPING the NATS security tests: no nats-server on this machine (Debian package nats-server).\n',
  );
}

const COORDINATOR_PASSWORD = `coord-${randomBytes(12).toString('hex')}`;
const AGENT_PASSWORD = `agent-${randomBytes(12).toString('hex')}`;
const subjects = subjectsFor('picket');

/** Everything a link logged, one string a line. */
function lines(): { all: string[]; log: (m: string) => void; warn: (m: string) => void; error: (m: string) => void } {
  const all: string[] = [];
  return { all, log: (m) => all.push(m), warn: (m) => all.push(m), error: (m) => all.push(m) };
}

/** The asynchronous errors the server sent a connection (permission violations arrive this way). */
function serverErrors(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error') seen.push(String(s.error.message));
  })();
  return seen;
}

(binary ? describe : describe.skip)('NATS with TLS, users and per-role permissions (deploy/nats)', () => {
  let dir: string;
  let pki: NatsPkiFiles;
  const server = new ConfiguredNats(binary ?? '');
  let url: string;
  const links: NatsLink[] = [];
  const connections: NatsConnection[] = [];
  let agent: NestFastifyApplication | undefined;
  let target: Server;

  const agentSecurity = (): NatsSecurity => ({ user: 'agent', pass: AGENT_PASSWORD, caFile: pki.ca });

  function link(servers: string, security: NatsSecurity, log = lines()): NatsLink {
    const created = new NatsLink(servers, 'security-test', log, {
      connectTimeoutSeconds: 0,
      onGiveUp: () => undefined,
      security,
    });
    links.push(created);
    created.start();
    return created;
  }

  async function connection(security: NatsSecurity, servers = url): Promise<NatsConnection> {
    const nc = await connectNats(servers, 'security-test', { log: () => undefined, warn: () => undefined }, security);
    connections.push(nc);
    return nc;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'picket-nats-security-'));
    pki = await writeNatsPki(dir);
    writeFileSync(join(dir, 'picket-auth.conf'), deployedAuthConf());
    const config = join(dir, 'nats.conf');
    writeFileSync(
      config,
      [
        `tls {`,
        `  cert_file: "${pki.serverCert}"`,
        `  key_file: "${pki.serverKey}"`,
        `  ca_file: "${pki.ca}"`,
        `}`,
        `include picket-auth.conf`,
        '',
      ].join('\n'),
    );
    const port = await server.pickPort();
    await server.start(config, {
      PICKET_NATS_COORDINATOR_PASSWORD: COORDINATOR_PASSWORD,
      PICKET_NATS_AGENT_PASSWORD: AGENT_PASSWORD,
    });
    url = `tls://127.0.0.1:${port}`;
    target = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await agent?.close();
    await Promise.all(links.map((l) => l.close()));
    await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
    await server.stop();
    target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("connects the coordinator and the agent over TLS with their users: the agent's probe route answers the coordinator's request, and its heartbeats arrive", async () => {
    agent = await createAgentApp(
      loadAgentConfig({
        NATS_URL: url,
        NATS_USER: 'agent',
        NATS_PASSWORD: AGENT_PASSWORD,
        NATS_CA_FILE: pki.ca,
        AGENT_ID: 'secured-agent',
        AGENT_REGIONS: 'eu-west-1',
        AGENT_HEARTBEAT_SECONDS: '1',
      }),
      { logger: false },
    );
    // The coordinator's credentials in the URL (percent-decoded by the link), TLS from tls:// and NATS_CA_FILE.
    const coordinatorConfig = loadCoordinatorConfig({
      NATS_URL: `tls://coordinator:${COORDINATOR_PASSWORD}@127.0.0.1:${server.port}`,
      NATS_CA_FILE: pki.ca,
    });
    const log = lines();
    const coordinator = startNatsLink(coordinatorConfig, {
      logger: { log: log.log, warn: log.warn, error: log.error },
      onGiveUp: () => undefined,
    })!;
    links.push(coordinator);
    const nc = await coordinator.whenConnected();
    expect(nc.info?.tls_required).toBe(true);
    expect(log.all.join('\n')).not.toContain(COORDINATOR_PASSWORD);

    const heartbeat = new Promise<Record<string, unknown>>((resolve) => {
      nc.subscribe(subjects.heartbeat, { max: 1, callback: (_e, msg) => resolve(msg.json()) });
    });

    const transport = new NatsTransport(coordinator, 'picket', systemClock);
    const port = (target.address() as AddressInfo).port;
    const result = await waitFor('the agent to answer over the secured NATS', async () => {
      const answer = await transport.request(
        probeRequest('https', { url: `http://127.0.0.1:${port}/`, check_certificate_expiration: false }),
      );
      return answer.status === 'unknown' ? undefined : answer;
    });
    expect(result).toMatchObject({ status: 'up', http_status: 200, agent_id: 'secured-agent' });
    await expect(heartbeat).resolves.toMatchObject({ agent_id: 'secured-agent', regions: ['eu-west-1'] });

    // Replica notices: coordinators may both send and hear them.
    const notice = new Promise<string>((resolve) => {
      nc.subscribe(subjects.monitorChanged, { max: 1, callback: (_e, msg) => resolve(msg.string()) });
    });
    await nc.flush();
    nc.publish(subjects.monitorChanged, '{"notice":1}');
    await expect(notice).resolves.toBe('{"notice":1}');
  });

  it('refuses a wrong password with a clear reason that does not contain the password', async () => {
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    const log = lines();
    const refused = link(url, { user: 'agent', pass: wrong, caFile: pki.ca }, log);
    await waitFor('the refusal', async () => (refused.lastError ? true : undefined));
    expect(refused.lastError).toBe('Authorization Violation');
    expect(refused.problemNow).toBe('connecting: Authorization Violation');
    expect(log.all.some((line) => line.includes('Authorization Violation'))).toBe(true);
    expect(log.all.join('\n')).not.toContain(wrong);

    // The same in the URL: the logged server list masks it.
    const inUrl = lines();
    const refusedUrl = link(`tls://agent:${wrong}@127.0.0.1:${server.port}`, { caFile: pki.ca }, inUrl);
    await waitFor('the refusal', async () => (refusedUrl.lastError ? true : undefined));
    expect(inUrl.all.join('\n')).toContain(`tls://agent:***@127.0.0.1:${server.port}`);
    expect(inUrl.all.join('\n')).not.toContain(wrong);
  });

  it("refuses the agent's user what only coordinators may do: publishing probe work, hearing replica notices, taking probe work outside the queue group", async () => {
    const nc = await connection(agentSecurity());
    const errors = serverErrors(nc);
    nc.publish(subjects.probe('eu-west-1'), '{}');
    nc.publish(subjects.monitorChanged, '{}');
    const subscriptionErrors: string[] = [];
    const onError = (error: Error | null) => {
      if (error) subscriptionErrors.push(error.message);
    };
    nc.subscribe(subjects.monitorChanged, { callback: onError });
    nc.subscribe(subjects.probe('eu-west-1'), { callback: onError });
    nc.subscribe(subjects.probe('eu-west-1'), { queue: 'not-the-agents', callback: onError });
    await nc.flush();
    const all = () => [...errors, ...subscriptionErrors].join('\n');
    await waitFor('the violations', async () =>
      (all().match(/Permissions Violation/g) ?? []).length >= 5 ? true : undefined,
    );
    expect(all()).toContain(`Permissions Violation for Publish to "${subjects.probe('eu-west-1')}"`);
    expect(all()).toContain(`Permissions Violation for Publish to "${subjects.monitorChanged}"`);
    expect(all()).toContain(`Permissions Violation for Subscription to "${subjects.monitorChanged}"`);
    expect(all()).toMatch(
      new RegExp(`Permissions Violation for Subscription to "${subjects.probe('eu-west-1').replaceAll('.', '\\.')}"`),
    );
    expect(all()).toContain('using queue "not-the-agents"');
  });

  it("refuses the coordinator's user the agents' side: taking probe work and forging heartbeats", async () => {
    const nc = await connection({ user: 'coordinator', pass: COORDINATOR_PASSWORD, caFile: pki.ca });
    const errors = serverErrors(nc);
    nc.publish(subjects.heartbeat, '{}');
    nc.subscribe(subjects.probe('eu-west-1'), { queue: 'picket-agents', callback: () => undefined });
    await nc.flush();
    await waitFor('the violations', async () => (errors.length >= 2 ? true : undefined));
    expect(errors.join('\n')).toContain(`Permissions Violation for Publish to "${subjects.heartbeat}"`);
    expect(errors.join('\n')).toContain(`Permissions Violation for Subscription to "${subjects.probe('eu-west-1')}"`);
  });

  it("fails TLS verification without the server's CA (system CAs only, or another CA)", async () => {
    for (const security of [
      { user: 'agent', pass: AGENT_PASSWORD },
      { user: 'agent', pass: AGENT_PASSWORD, caFile: pki.otherCa },
    ]) {
      const untrusting = link(url, security);
      await waitFor('the TLS failure', async () => (untrusting.lastError ? true : undefined));
      expect(untrusting.lastError).toMatch(/certificate/i);
      expect(untrusting.connected).toBe(false);
    }
  });

  it('speaks TLS verified with NATS_CA_FILE when the URL says nats:// (the server requires TLS)', async () => {
    const nc = await connection(
      natsSecurityOf({ NATS_USER: 'agent', NATS_PASSWORD: AGENT_PASSWORD, NATS_CA_FILE: pki.ca }),
      url.replace('tls://', 'nats://'),
    );
    expect(nc.info?.tls_required).toBe(true);
  });
});

(binary ? describe : describe.skip)('NATS with client certificates and an NKey user', () => {
  let dir: string;
  let pki: NatsPkiFiles;
  const server = new ConfiguredNats(binary ?? '');
  let url: string;
  let seedFile: string;
  const links: NatsLink[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'picket-nats-mtls-'));
    pki = await writeNatsPki(dir);
    const user = nkeys.createUser();
    seedFile = join(dir, 'agent.nk');
    writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600 });
    const config = join(dir, 'nats.conf');
    writeFileSync(
      config,
      [
        `tls { cert_file: "${pki.serverCert}", key_file: "${pki.serverKey}", ca_file: "${pki.ca}", verify: true }`,
        `authorization { users: [ { nkey: ${user.getPublicKey()} } ] }`,
        '',
      ].join('\n'),
    );
    const port = await server.pickPort();
    await server.start(config, {});
    url = `tls://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await Promise.all(links.map((l) => l.close()));
    await server.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function link(security: NatsSecurity): NatsLink {
    const created = new NatsLink(url, 'mtls-test', lines(), {
      connectTimeoutSeconds: 0,
      onGiveUp: () => undefined,
      security,
    });
    links.push(created);
    created.start();
    return created;
  }

  it('connects with NATS_CERT_FILE/NATS_KEY_FILE and an NKey seed in NATS_CREDS_FILE', async () => {
    const security = natsSecurityOf(
      loadAgentConfig({
        NATS_URL: url,
        NATS_CREDS_FILE: seedFile,
        NATS_CA_FILE: pki.ca,
        NATS_CERT_FILE: pki.clientCert,
        NATS_KEY_FILE: pki.clientKey,
      }),
    );
    const nc = await link(security).whenConnected();
    expect(nc.info?.tls_verify).toBe(true);
  });

  it('is refused without a client certificate, and without the NKey', async () => {
    const noCert = link({ credsFile: seedFile, caFile: pki.ca });
    const noKey = link({ caFile: pki.ca, certFile: pki.clientCert, keyFile: pki.clientKey });
    await waitFor('both refusals', async () => (noCert.lastError && noKey.lastError ? true : undefined));
    expect(noCert.connected || noKey.connected).toBe(false);
    expect(noKey.lastError).toBe('Authorization Violation');
  });
});
