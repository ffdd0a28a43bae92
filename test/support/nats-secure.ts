import { expect } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { PROBE_QUEUE_GROUP, subjectsFor } from '#contracts';
import type { NatsConnection } from '#runtime';
import { NATS_INIT_FILES, natsInit } from '../../apps/coordinator/src/nats-auth/nats-init.js';
import { freePort, natsServerBinary } from './faults.js';
import { REPO_ROOT } from './processes.js';
import { testAuthority } from './tls.js';
import { waitFor } from './wait.js';

/** The NATS files shipped in deploy/nats (docs/decisions/0019-securing-nats.md). */
export const DEPLOY_NATS = join(REPO_ROOT, 'deploy/nats');
/** Where the shipped configurations expect the server's TLS files. */
export const DEPLOYED_TLS_DIR = '/etc/nats/tls';

/** PEM files of a throwaway PKI, written to a directory. */
export interface NatsPkiFiles {
  /** The CA clients and servers trust. */
  ca: string;
  /** The server's certificate (serverAuth and clientAuth: routes use it both ways) and key. */
  serverCert: string;
  serverKey: string;
  /** A client certificate signed by the CA, and its key. */
  clientCert: string;
  clientKey: string;
  /** Another CA, which signed none of these. */
  otherCa: string;
}

type AltName = { type: 2; value: string } | { type: 7; ip: string };
const LOOPBACK_AND_CLUSTER_NAMES: AltName[] = [
  { type: 2, value: 'localhost' },
  { type: 7, ip: '127.0.0.1' },
  { type: 7, ip: '::1' },
  ...['nats-1', 'nats-2', 'nats-3', 'nats-0.nats', 'nats-1.nats', 'nats-2.nats'].map((value): AltName => ({
    type: 2,
    value,
  })),
];

/** A CA, a server certificate for loopback and the shipped cluster's names, a client certificate, and a stranger CA. */
export async function writeNatsPki(dir: string): Promise<NatsPkiFiles> {
  const ca = await testAuthority('Picket NATS Test CA');
  const other = await testAuthority('Some Other CA');
  const leaf = (cn: string, ext: { serverAuth?: boolean; clientAuth?: boolean }, altNames?: AltName[]) =>
    generate([{ name: 'commonName', value: cn }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      notBeforeDate: new Date(Date.now() - 86_400_000),
      notAfterDate: new Date(Date.now() + 30 * 86_400_000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage' as const, ...ext },
        ...(altNames ? [{ name: 'subjectAltName' as const, altNames }] : []),
      ],
    });
  const server = await leaf('nats', { serverAuth: true, clientAuth: true }, LOOPBACK_AND_CLUSTER_NAMES);
  const client = await leaf('picket-agent', { clientAuth: true });
  const files: NatsPkiFiles = {
    ca: join(dir, 'ca.crt'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
    otherCa: join(dir, 'other-ca.crt'),
  };
  writeFileSync(files.ca, ca.cert);
  writeFileSync(files.serverCert, server.cert);
  writeFileSync(files.serverKey, server.private, { mode: 0o600 });
  writeFileSync(files.clientCert, client.cert);
  writeFileSync(files.clientKey, client.private, { mode: 0o600 });
  writeFileSync(files.otherCa, other.cert);
  return files;
}

/**
 * A shipped configuration made testable in `dir`: the server TLS paths point at `pki`'s files
 * (under the names the docs tell operators to use), and the files it includes are copied beside it.
 */
export function stageDeployedConfig(text: string, dir: string, pki: NatsPkiFiles, name: string): string {
  copyFileSync(pki.ca, join(dir, 'ca.crt'));
  copyFileSync(pki.serverCert, join(dir, 'server.crt'));
  copyFileSync(pki.serverKey, join(dir, 'server.key'));
  for (const [, included] of text.matchAll(/^\s*include\s+"?([^"\s]+)"?/gm)) {
    copyFileSync(join(DEPLOY_NATS, included!), join(dir, included!));
  }
  const path = join(dir, name);
  writeFileSync(path, text.replaceAll(`${DEPLOYED_TLS_DIR}/`, `${dir}/`));
  return path;
}

/** `nats-server -t -c file`: null when the server accepts the configuration, else what it said. */
export function natsConfigProblem(binary: string, file: string, env: Record<string, string>): string | null {
  const run = spawnSync(binary, ['-t', '-c', file], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  return run.status === 0 ? null : `${run.stderr}${run.stdout}`.trim() || `exit ${String(run.status)}`;
}

/** The shipped permissions file (deploy/nats/picket-auth.conf). */
export function deployedAuthConf(): string {
  return readFileSync(join(DEPLOY_NATS, 'picket-auth.conf'), 'utf8');
}

/** A nats-server of the test's own on a free loopback port, run from a configuration file. */
export class ConfiguredNats {
  private child: ChildProcess | null = null;
  private output = '';
  port = 0;

  constructor(private readonly binary: string) {}

  static binary(): string | null {
    return natsServerBinary();
  }

  async start(configFile: string, env: Record<string, string>): Promise<this> {
    const child = spawn(this.binary, ['-c', configFile, '-a', '127.0.0.1', '-p', String(this.port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, ...env },
    });
    this.child = child;
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    for (let i = 0; i < 100; i++) {
      if (/Server is ready/.test(this.output)) return this;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`nats-server did not start on port ${this.port}: ${this.output}`);
  }

  async pickPort(): Promise<number> {
    this.port ||= await freePort();
    return this.port;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * What a connection is told went wrong (its status errors, and the errors handed to
 * subscription callbacks through `onError`), to find the server's `Permissions Violation`s.
 */
function natsErrors(nc: NatsConnection) {
  const errors: string[] = [];
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error') errors.push(s.error instanceof Error ? s.error.message : String(s.error));
    }
  })();
  const all = () => errors.join('\n');
  return {
    onError: (error: Error | null) => {
      if (error) errors.push(error.message);
    },
    all,
    /**
     * Resolves once every line of `expected` was reported, or after the wait's bound (the caller's
     * expectations then name what is missing). Not a count: a violation may be told twice (the
     * status stream and the subscription's callback).
     */
    reported: (expected: readonly string[]) =>
      waitFor('the violations', async () => (expected.every((line) => all().includes(line)) ? true : undefined)).catch(
        () => undefined,
      ),
  };
}

/**
 * As the agent user of `accountId`'s `region` on `nc`, tries what lies outside that region —
 * a public region's work, `otherAccountId`'s same region, its own work outside the queue group,
 * other heartbeats, publishing its own region's work, a reply it was not asked for — and
 * expects the server to refuse each (`Permissions Violation`).
 */
/**
 * As the shared agent user of public regions on `nc`, tries what lies outside public work —
 * a private region's work, work outside the queue group, a private heartbeat, publishing
 * probe work, a reply it was not asked for — and expects the server to refuse each.
 */
export async function expectConfinedToPublicWork(nc: NatsConnection, prefix: string, accountId: string): Promise<void> {
  const subjects = subjectsFor(prefix);
  const { onError, all, reported } = natsErrors(nc);
  nc.subscribe(subjects.privateProbe(accountId, 'office'), { queue: PROBE_QUEUE_GROUP, callback: onError });
  nc.subscribe(subjects.probe('eu-west-1'), { callback: onError }); // outside the queue group
  nc.publish(subjects.privateHeartbeat(accountId, 'office'), '{}');
  nc.publish(subjects.probe('eu-west-1'), '{}');
  nc.publish('_INBOX.forged', '{}');
  await nc.flush();
  const expected = [
    ...[subjects.privateProbe(accountId, 'office'), subjects.probe('eu-west-1')].map(
      (subject) => `Permissions Violation for Subscription to "${subject}"`,
    ),
    ...[subjects.privateHeartbeat(accountId, 'office'), subjects.probe('eu-west-1'), '_INBOX.forged'].map(
      (subject) => `Permissions Violation for Publish to "${subject}"`,
    ),
  ];
  await reported(expected);
  for (const line of expected) expect(all()).toContain(line);
}

export async function expectConfinedToRegion(
  nc: NatsConnection,
  prefix: string,
  accountId: string,
  otherAccountId: string,
  region: string,
): Promise<void> {
  const subjects = subjectsFor(prefix);
  const { onError, all, reported } = natsErrors(nc);
  nc.subscribe(subjects.probe('eu-west-1'), { queue: PROBE_QUEUE_GROUP, callback: onError });
  nc.subscribe(subjects.privateProbe(otherAccountId, region), { queue: PROBE_QUEUE_GROUP, callback: onError });
  nc.subscribe(subjects.privateProbe(accountId, region), { callback: onError }); // outside the queue group
  nc.publish(subjects.heartbeat, '{}');
  nc.publish(subjects.privateHeartbeat(otherAccountId, region), '{}');
  nc.publish(subjects.privateProbe(accountId, region), '{}');
  nc.publish('_INBOX.forged', '{}'); // a "result" for a request it never received
  await nc.flush();
  const expected = [
    ...[
      subjects.probe('eu-west-1'),
      subjects.privateProbe(otherAccountId, region),
      subjects.privateProbe(accountId, region),
    ].map((subject) => `Permissions Violation for Subscription to "${subject}"`),
    ...[
      subjects.heartbeat,
      subjects.privateHeartbeat(otherAccountId, region),
      subjects.privateProbe(accountId, region),
      '_INBOX.forged',
    ].map((subject) => `Permissions Violation for Publish to "${subject}"`),
  ];
  await reported(expected);
  for (const line of expected) expect(all()).toContain(line);
}

/** A nats-server of the test's own in JWT mode, from `nats init` run in-process. */
export interface JwtNats {
  url: string;
  /** The files `nats init` wrote, by role. */
  files: Record<keyof typeof NATS_INIT_FILES, string>;
  dir: string;
  /** What a coordinator needs to connect and to enroll agents: NATS_URL, NATS_CREDS_FILE, NATS_AUTH_DIR. */
  coordinatorEnv: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts a nats-server with decentralised auth (docs/decisions/0030-private-regions.md). Without
 * the nats-server binary it fails: suites that need it say so at their top.
 */
export async function startJwtNats(): Promise<JwtNats> {
  const binary = natsServerBinary();
  if (!binary) throw new Error('nats-server is not installed (Debian package nats-server)');
  const dir = join(mkdtempSync(join(tmpdir(), 'picket-jwt-nats-')), 'nats');
  await natsInit(dir);
  const files = Object.fromEntries(
    Object.entries(NATS_INIT_FILES).map(([role, name]) => [role, join(dir, name)]),
  ) as JwtNats['files'];
  const server = new ConfiguredNats(binary);
  const url = `nats://127.0.0.1:${await server.pickPort()}`;
  await server.start(files.config, {});
  return {
    url,
    files,
    dir,
    coordinatorEnv: { NATS_URL: url, NATS_CREDS_FILE: files.coordinatorCreds, NATS_AUTH_DIR: dir },
    async stop() {
      await server.stop();
      rmSync(join(dir, '..'), { recursive: true, force: true });
    },
  };
}
