import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { PROBE_BATCH_MAX_CHECKS, PROBE_QUEUE_GROUP, subjectsFor } from '#contracts';
import {
  ConfiguredNats,
  DEPLOY_NATS,
  deployedAuthConf,
  natsConfigProblem,
  stageDeployedConfig,
  writeNatsPki,
  type NatsPkiFiles,
} from '../support/nats-secure.js';
import { REPO_ROOT } from '../support/processes.js';

/**
 * The shipped NATS configurations (deploy/nats, the ConfigMap of deploy/k8s/nats.yaml) are ones
 * nats-server accepts (`nats-server -t`), require TLS and the users of picket-auth.conf, and carry
 * no password an installation would silently accept (docs/decisions/0019-securing-nats.md). That
 * the permissions let the apps work, and only that, is test/e2e/nats-security.spec.ts.
 */
const binary = ConfiguredNats.binary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the NATS configuration tests need nats-server on this machine (Debian package nats-server)');
}
if (!binary) {
  process.stderr.write(
    '[picket tests] SKIPPING `nats-server -t` on deploy/nats and deploy/k8s/nats.yaml: no nats-server on this ' +
      'machine (install Debian package nats-server to run them).\n',
  );
}

const NODE_CONFS = readdirSync(DEPLOY_NATS).filter((f) => /^nats-.*\.conf$/.test(f));
const PASSWORDS = { PICKET_NATS_COORDINATOR_PASSWORD: 'c'.repeat(64), PICKET_NATS_AGENT_PASSWORD: 'a'.repeat(64) };

const natsYaml = parseAllDocuments(readFileSync(join(REPO_ROOT, 'deploy/k8s/nats.yaml'), 'utf8')).map(
  (d) => d.toJS() as { kind: string; metadata: { name: string }; data?: Record<string, string> },
);
const configMap = natsYaml.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'nats-config')!;

describe('shipped NATS configurations (text)', () => {
  it('ships three node configurations and the ConfigMap, each requiring TLS and including picket-auth.conf', () => {
    expect(NODE_CONFS.sort()).toEqual(['nats-1.conf', 'nats-2.conf', 'nats-3.conf']);
    for (const text of [
      ...NODE_CONFS.map((f) => readFileSync(join(DEPLOY_NATS, f), 'utf8')),
      configMap.data!['nats.conf']!,
    ]) {
      expect(text).toMatch(/^tls \{/m);
      expect(text).toMatch(/^\s*include picket-auth\.conf$/m);
      expect(text).toMatch(/verify: true/); // routes: mutual TLS
    }
  });

  it('the ConfigMap carries the same permissions as deploy/nats/picket-auth.conf', () => {
    expect(configMap.data!['picket-auth.conf']).toBe(deployedAuthConf());
  });

  it('holds no password: each comes from the server environment, which nothing ships', () => {
    const auth = deployedAuthConf();
    const passwords = [...auth.matchAll(/^\s*password:\s*(\S+)/gm)].map((m) => m[1]);
    expect(passwords).toEqual(['$PICKET_NATS_COORDINATOR_PASSWORD', '$PICKET_NATS_AGENT_PASSWORD']);
  });

  it("names the apps' subjects and the agents' queue group (default prefix)", () => {
    const s = subjectsFor('picket');
    const auth = deployedAuthConf();
    const coordinator = auth.slice(auth.indexOf('user: coordinator'), auth.indexOf('user: agent'));
    const agent = auth.slice(auth.indexOf('user: agent'));
    expect(coordinator).toContain(
      `publish: { allow: ["picket.probe.>", "${s.privateProbe('*', '*')}", "${s.privateProbeBatch('*', '*')}", "${s.monitorChanged}", "${s.heartbeatPing}", "${s.statusChanged}"] }`,
    );
    expect(coordinator).toContain(
      `subscribe: { allow: ["${s.heartbeat}", "${s.privateHeartbeats}", "${s.monitorChanged}", "${s.heartbeatPing}", "${s.statusChanged}", "_INBOX.>"] }`,
    );
    expect(s.probe('eu-west-1')).toMatch(/^picket\.probe\.[^.]+$/);
    expect(agent).toContain(`publish: { allow: ["${s.heartbeat}"] }`);
    expect(s.probeBatch('eu-west-1')).toMatch(/^picket\.probe\.[^.]+\.batch$/);
    expect(agent).toContain(
      `subscribe: { allow: ["picket.probe.* ${PROBE_QUEUE_GROUP}", "picket.probe.*.batch ${PROBE_QUEUE_GROUP}"] }`,
    );
    // One reply per check of a batch at most (PROBE_BATCH_MAX_CHECKS).
    expect(agent).toContain(`allow_responses: { max: ${PROBE_BATCH_MAX_CHECKS}, expires: "2m" }`);
  });

  it('every shipped NATS_URL uses TLS', () => {
    const files = [
      'compose.yaml',
      'k8s/config.yaml',
      'systemd/picket-agent.service',
      'systemd/picket-coordinator.service',
      'systemd/picket-private-agent.service',
      'private-agent.compose.yaml',
    ];
    const urls = files.flatMap((f) =>
      [...readFileSync(join(REPO_ROOT, 'deploy', f), 'utf8').matchAll(/NATS_URL[:=]\s*(\S+)/g)].map((m) => m[1]),
    );
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) expect(url).toMatch(/^tls:\/\//);
  });
});

(binary ? describe : describe.skip)('shipped NATS configurations (nats-server -t)', () => {
  let dir: string;
  let pki: NatsPkiFiles;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'picket-nats-conf-'));
    pki = await writeNatsPki(dir);
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(NODE_CONFS)('deploy/nats/%s is accepted, and refused without the passwords in its environment', (file) => {
    const staged = stageDeployedConfig(readFileSync(join(DEPLOY_NATS, file), 'utf8'), dir, pki, file);
    expect(natsConfigProblem(binary!, staged, PASSWORDS)).toBeNull();
    expect(natsConfigProblem(binary!, staged, {})).toMatch(/PICKET_NATS_(COORDINATOR|AGENT)_PASSWORD/);
  });

  it('the nats.conf of deploy/k8s/nats.yaml is accepted', () => {
    const staged = stageDeployedConfig(configMap.data!['nats.conf']!, dir, pki, 'k8s-nats.conf');
    expect(natsConfigProblem(binary!, staged, { ...PASSWORDS, POD_NAME: 'nats-0' })).toBeNull();
  });

  it('the check is real: a configuration naming a certificate that is not there is refused', () => {
    const broken = readFileSync(join(DEPLOY_NATS, 'nats-1.conf'), 'utf8').replaceAll('server.crt', 'missing.crt');
    const staged = stageDeployedConfig(broken, dir, pki, 'broken.conf');
    expect(natsConfigProblem(binary!, staged, PASSWORDS)).toMatch(/missing\.crt/);
  });
});
