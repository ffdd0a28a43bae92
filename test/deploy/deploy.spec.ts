import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { parseAllDocuments } from 'yaml';
import { ConfigError, configVariables } from '#runtime';
import { AgentConfig, loadAgentConfig } from '../../apps/agent/src/config.js';
import { API_KEY_PATTERN } from '../../apps/coordinator/src/auth/api-key.js';
import { CoordinatorConfig, loadCoordinatorConfig } from '../../apps/coordinator/src/config.js';
import { deployedNodeOptions } from '../support/deployed-node-options.js';
import { REPO_ROOT } from '../support/processes.js';
import { testPki } from '../support/tls.js';

const DEPLOY = join(REPO_ROOT, 'deploy');
const read = (path: string) => readFileSync(join(DEPLOY, path), 'utf8');
const COORDINATOR_VARS = new Set(configVariables(CoordinatorConfig));
const AGENT_VARS = new Set(configVariables(AgentConfig));
/** Node's own variables, which any unit or image may set. */
const NODE_VARS = new Set(['NODE_ENV', 'NODE_OPTIONS']);
const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

type Json = Record<string, unknown>;

function yamlDocuments(path: string): Json[] {
  return parseAllDocuments(read(path), { merge: true }).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as Json;
  });
}

/** The kubernetes-models class for each kind the manifests use: validate() checks the object against the API schema. */
const KINDS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

const manifests = readdirSync(join(DEPLOY, 'k8s'))
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) => yamlDocuments(join('k8s', file)).map((doc) => ({ file, doc })));

describe('Kubernetes manifests', () => {
  it.each(
    manifests.map(
      ({ file, doc }) => [`${file}: ${String(doc.kind)} ${String((doc.metadata as Json).name)}`, doc] as const,
    ),
  )('%s is valid against the Kubernetes API schema', (_name, doc: Json) => {
    const Model = KINDS[`${String(doc.apiVersion)}/${String(doc.kind)}`];
    expect(Model).toBeDefined();
    expect(() => new Model!(doc as never).validate()).not.toThrow();
  });

  it('catches a broken manifest (the validation is real)', () => {
    const broken = structuredClone(manifests.find(({ doc }) => doc.kind === 'Deployment')!.doc);
    ((broken.spec as Json).template as Json).spec = { containers: 'not a list' };
    expect(() => new Deployment(broken as never).validate()).toThrow();
  });

  it('runs two coordinator replicas, agents in three regions with NET_RAW only, and three NATS nodes', () => {
    const byKind = (kind: string) => manifests.filter(({ doc }) => doc.kind === kind).map(({ doc }) => doc);
    const deployments = byKind('Deployment') as unknown as Deployment[];
    const coordinator = deployments.find((d) => d.metadata?.name === 'coordinator');
    expect(coordinator?.spec?.replicas).toBe(2);
    const agents = deployments.filter((d) => d.metadata?.name?.startsWith('agent-'));
    expect(agents.map((a) => a.metadata?.name).sort()).toEqual([
      'agent-ap-southeast-1',
      'agent-eu-west-1',
      'agent-us-east-1',
    ]);
    for (const agent of agents) {
      const caps = agent.spec?.template.spec?.containers[0]?.securityContext?.capabilities;
      expect(caps).toEqual({ drop: ['ALL'], add: ['NET_RAW'] });
    }
    expect((byKind('StatefulSet')[0] as unknown as StatefulSet).spec?.replicas).toBe(3);
  });

  it('ships no usable bootstrap key: the coordinator refuses the placeholder and says how to generate one', async () => {
    const settings = manifests
      .filter(({ file, doc }) => file === 'config.yaml' && (doc.kind === 'Secret' || doc.kind === 'ConfigMap'))
      .map(({ doc }) => (doc.stringData ?? doc.data ?? {}) as Record<string, string>);
    const env = Object.assign({}, ...settings) as Record<string, string>;
    // A placeholder that is no key at all, and says itself how to make one.
    expect(env.BOOTSTRAP_API_KEY).toContain('openssl rand -hex 32');
    expect(env.BOOTSTRAP_API_KEY).not.toMatch(API_KEY_PATTERN);
    let problem = '';
    try {
      loadCoordinatorConfig(env);
    } catch (error) {
      problem = error instanceof ConfigError ? error.message : String(error);
    }
    expect(problem).toContain('BOOTSTRAP_API_KEY');
    expect(problem).toContain('openssl rand -hex 32');
    // The same for the key that seals secrets at rest (docs/decisions/0020-secrets-at-rest.md), never echoed.
    expect(env.SECRETS_KEY).toContain('openssl rand -base64 32');
    expect(problem).toContain('SECRETS_KEY ("(hidden)")');
    expect(problem).not.toContain(String(env.SECRETS_KEY));
    // What the operator is told to do works: the same settings with generated keys load, once
    // the NATS password Secret and the CA file exist (deploy/k8s/nats.yaml says how to make them).
    const dir = mkdtempSync(join(tmpdir(), 'picket-deploy-'));
    try {
      const ca = join(dir, 'ca.crt');
      writeFileSync(ca, (await testPki()).ca);
      expect(env.NATS_CA_FILE).toBe('/etc/picket/nats/ca.crt');
      expect(() =>
        loadCoordinatorConfig({
          ...env,
          BOOTSTRAP_API_KEY: `pkt_${randomBytes(32).toString('hex')}`,
          SECRETS_KEY: randomBytes(32).toString('base64'),
          NATS_PASSWORD: randomBytes(32).toString('hex'),
          NATS_CA_FILE: ca,
        }),
      ).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sets only documented variables of the app each container runs', () => {
    for (const { doc } of manifests) {
      if (doc.kind === 'Deployment') {
        const d = doc as unknown as Deployment;
        const vars = new Set(d.metadata?.name === 'coordinator' ? COORDINATOR_VARS : AGENT_VARS);
        for (const env of d.spec?.template.spec?.containers.flatMap((c) => c.env ?? []) ?? []) {
          expect(`${env.name} in ${String(d.metadata?.name)}: ${vars.has(env.name)}`).toMatch(/: true$/);
        }
      }
      if (doc.kind === 'ConfigMap' || doc.kind === 'Secret') {
        const data = (doc.data ?? doc.stringData ?? {}) as Json;
        if ((doc.metadata as Json).name === 'nats-config') continue;
        for (const key of Object.keys(data)) expect(`${key}: ${COORDINATOR_VARS.has(key)}`).toBe(`${key}: true`);
      }
    }
  });
});

describe('compose file', () => {
  const [compose] = yamlDocuments('compose.yaml') as [Json];
  const services = compose.services as Record<string, Json>;
  const KNOWN_SERVICE_KEYS = new Set([
    'image',
    'build',
    'restart',
    'environment',
    'depends_on',
    'ports',
    'volumes',
    'command',
    'healthcheck',
    'cap_add',
    'cap_drop',
    'stop_grace_period',
  ]);

  it('has only known top-level and service keys, and references that resolve', () => {
    expect(Object.keys(compose).filter((k) => !k.startsWith('x-'))).toEqual(['name', 'services', 'volumes']);
    for (const [name, service] of Object.entries(services)) {
      for (const key of Object.keys(service)) expect(`${name}.${key}: ${KNOWN_SERVICE_KEYS.has(key)}`).toMatch(/true$/);
      expect(service.image ?? service.build).toBeDefined();
      const depends = service.depends_on ?? [];
      for (const dep of Array.isArray(depends) ? depends : Object.keys(depends)) {
        expect(Object.keys(services)).toContain(dep);
      }
      for (const volume of (service.volumes ?? []) as string[]) {
        const source = volume.split(':')[0] ?? '';
        // deploy/nats/tls/ holds the operator's TLS files (deploy/README.md says how to make them).
        if (source.startsWith('./nats/tls'))
          expect(readFileSync(join(DEPLOY, 'README.md'), 'utf8')).toContain('deploy/nats/tls/');
        else if (source.startsWith('./')) expect(() => read(source)).not.toThrow();
        else expect(Object.keys(compose.volumes as Json)).toContain(source);
      }
      if (service.build) {
        const build = service.build as Json;
        expect(() => readFileSync(join(DEPLOY, String(build.context), String(build.dockerfile)))).not.toThrow();
      }
    }
  });

  it('gives coordinators and agents more time to stop than their own shutdown takes (compose waits 10 s by default)', () => {
    const seconds = (value: unknown) => Number(/^(\d+)s$/.exec(String(value))?.[1] ?? 0);
    for (const [name, service] of Object.entries(services)) {
      if (/^(coordinator|agent)-/.test(name))
        expect(`${name}: ${seconds(service.stop_grace_period)}`).toMatch(/: (3\d|[4-9]\d)$/);
    }
  });

  it('starts PostgreSQL, three NATS nodes, two coordinators and agents in three regions', () => {
    expect(Object.keys(services).sort()).toEqual([
      'agent-ap-southeast-1',
      'agent-eu-west-1',
      'agent-us-east-1',
      'coordinator-a',
      'coordinator-b',
      'nats-1',
      'nats-2',
      'nats-3',
      'postgres',
    ]);
    const regions = Object.entries(services)
      .filter(([name]) => name.startsWith('agent-'))
      .map(([, s]) => (s.environment as Json).AGENT_REGIONS);
    expect(regions.sort()).toEqual(['ap-southeast-1', 'eu-west-1', 'us-east-1']);
    for (const [name, s] of Object.entries(services)) {
      if (name.startsWith('agent-')) expect([s.cap_drop, s.cap_add]).toEqual([['ALL'], ['NET_RAW']]);
    }
  });

  it('sets only documented variables of the app each service runs', () => {
    for (const [name, service] of Object.entries(services)) {
      const vars = name.startsWith('coordinator') ? COORDINATOR_VARS : name.startsWith('agent') ? AGENT_VARS : null;
      if (!vars) continue;
      for (const key of Object.keys(service.environment as Json)) {
        expect(`${name}: ${key} ${vars.has(key)}`).toBe(`${name}: ${key} true`);
        expect(README).toContain(`\`${key}\``);
      }
    }
  });
});

describe('NATS cluster and systemd units', () => {
  it('three NATS nodes route to each other', () => {
    for (const n of [1, 2, 3]) {
      const conf = read(`nats/nats-${n}.conf`);
      expect(conf).toContain(`server_name: nats-${n}`);
      for (const peer of [1, 2, 3]) expect(conf).toContain(`nats-route://nats-${peer}:6222`);
    }
  });

  it('the units set documented variables, and the agent has CAP_NET_RAW and no other privilege', () => {
    for (const [unit, vars] of [
      ['systemd/picket-coordinator.service', COORDINATOR_VARS],
      ['systemd/picket-agent.service', AGENT_VARS],
      ['systemd/picket-private-agent.service', AGENT_VARS],
    ] as const) {
      const text = read(unit);
      for (const [, key] of text.matchAll(/^#?\s*Environment="?([A-Z_]+)=/gm)) {
        if (NODE_VARS.has(key!)) continue;
        expect(`${unit}: ${String(key)} ${vars.has(key!)}`).toBe(`${unit}: ${String(key)} true`);
      }
    }
    for (const unit of ['systemd/picket-agent.service', 'systemd/picket-private-agent.service']) {
      const agent = read(unit);
      expect(agent).toMatch(/^AmbientCapabilities=CAP_NET_RAW$/m);
      expect(agent).toMatch(/^CapabilityBoundingSet=CAP_NET_RAW$/m);
      expect(agent).toMatch(/^NoNewPrivileges=true$/m);
    }
  });

  it('the private agent unit and compose example enroll with a token kept out of the file, into a 0700 state directory', () => {
    const unit = read('systemd/picket-private-agent.service');
    expect(unit).not.toMatch(/^Environment=AGENT_ENROLL_TOKEN/m);
    expect(unit).toMatch(/^EnvironmentFile=-\/etc\/picket\/private-agent\.env$/m);
    expect(unit).toMatch(/^Environment=NATS_CREDS_FILE=\/var\/lib\/picket-agent\/nats\.creds$/m);
    expect(unit).toMatch(/^StateDirectory=picket-agent$/m);
    expect(unit).toMatch(/^StateDirectoryMode=0700$/m);
    const [compose] = yamlDocuments('private-agent.compose.yaml') as [Json];
    const services = compose.services as Record<string, Json>;
    expect(Object.keys(services)).toEqual(['agent-office']);
    const agent = services['agent-office']!;
    const env = agent.environment as Json;
    for (const key of Object.keys(env)) {
      expect(`${key} ${AGENT_VARS.has(key)}`).toBe(`${key} true`);
      expect(README).toContain(`\`${key}\``);
    }
    expect(env.AGENT_ENROLL_TOKEN).toBe('${AGENT_ENROLL_TOKEN:-}');
    expect(String(env.NATS_URL)).toMatch(/^tls:\/\//);
    expect(agent.volumes).toEqual(['agent-creds:/var/lib/picket-agent']);
    expect(String(env.NATS_CREDS_FILE).startsWith('/var/lib/picket-agent/')).toBe(true);
    expect(read('docker/agent.Dockerfile')).toContain('install -d -m 0700 -o node -g node /var/lib/picket-agent');
    expect([agent.cap_drop, agent.cap_add]).toEqual([['ALL'], ['NET_RAW']]);
    // A valid configuration once the placeholders are what an operator would put there.
    expect(() =>
      loadAgentConfig({
        ...(env as Record<string, string>),
        AGENT_ENROLL_TOKEN: undefined,
        NATS_CREDS_FILE: undefined,
      }),
    ).not.toThrow();
  });

  it('the unit and the image give each app the same heap limits (NODE_OPTIONS)', () => {
    for (const app of ['coordinator', 'agent'] as const) {
      const unit = deployedNodeOptions(app, 'systemd');
      expect(unit).toMatch(/--max-old-space-size=\d+/);
      expect(`${app}: ${deployedNodeOptions(app, 'docker')}`).toBe(`${app}: ${unit}`);
    }
  });

  it('every variable the Dockerfiles set belongs to their app', () => {
    for (const [file, vars] of [
      ['docker/coordinator.Dockerfile', COORDINATOR_VARS],
      ['docker/agent.Dockerfile', AGENT_VARS],
    ] as const) {
      const env = [...read(file).matchAll(/^ENV (.+)$/gm)].map((line) => line[1]).join(' ');
      for (const [, key] of env.matchAll(/([A-Z_]+)=/g)) {
        if (NODE_VARS.has(key!)) continue;
        expect(`${file}: ${String(key)} ${vars.has(key!)}`).toBe(`${file}: ${String(key)} true`);
      }
    }
  });
});
