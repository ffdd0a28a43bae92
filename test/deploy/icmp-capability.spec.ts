import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../support/processes.js';

/**
 * How the agent image gets CAP_NET_RAW for ping checks while running as the user `node`
 * (docs/decisions/0021-per-monitor-metrics-and-node-24.md). No container engine runs here, so the
 * mechanism is shown on this machine instead: a copy of the node binary, run as an unprivileged
 * user by setpriv with a capability bounding set like the container's (`cap_drop: ALL`,
 * `cap_add: NET_RAW`), opens an ICMP raw socket only once `setcap cap_net_raw+ep` is on the copy;
 * no_new_privs (Kubernetes' allowPrivilegeEscalation: false) voids it; and a process that gained a
 * file capability ignores NODE_OPTIONS, which is why the image passes its heap limits as flags.
 * The systemd unit's way (AmbientCapabilities) is shown too.
 */

const DOCKER = join(REPO_ROOT, 'deploy', 'docker');
const dockerfile = (app: string) => readFileSync(join(DOCKER, `${app}.Dockerfile`), 'utf8');

/** The instructions of a Dockerfile's last stage, continuation lines joined. */
function finalStage(text: string): string[] {
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const from = instructions.map((line) => line.startsWith('FROM ')).lastIndexOf(true);
  return instructions.slice(from);
}

describe('the container images (deploy/docker)', () => {
  it.each([['agent'], ['coordinator']])('%s: every stage is built from Node 24 LTS', (app) => {
    const bases = [...dockerfile(app).matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^node:24(-bookworm-slim)?$/);
  });

  it.each([['agent'], ['coordinator']])('%s: the last stage runs as the user node', (app) => {
    const users = finalStage(dockerfile(app)).filter((line) => line.startsWith('USER '));
    expect(users.at(-1)).toBe('USER node');
  });

  it('agent: the last stage gives the node binary cap_net_raw+ep before switching to the user node', () => {
    const stage = finalStage(dockerfile('agent'));
    const setcap = stage.findIndex((line) =>
      /^RUN .*libcap2-bin.*&& setcap cap_net_raw\+ep "\$\(readlink -f \/usr\/local\/bin\/node\)"/.test(line),
    );
    expect(setcap).toBeGreaterThan(0);
    expect(setcap).toBeLessThan(stage.indexOf('USER node'));
    // Heap limits as flags: NODE_OPTIONS would be ignored by a node with a file capability.
    expect(stage.some((line) => line.startsWith('ENV NODE_OPTIONS'))).toBe(false);
    expect(stage.at(-1)).toMatch(/^CMD \["node", "--max-old-space-size=\d+", /);
  });

  it('Kubernetes agents may gain NET_RAW from the file capability, and nothing else', () => {
    const docs = parseAllDocuments(readFileSync(join(REPO_ROOT, 'deploy/k8s/agents.yaml'), 'utf8')).map(
      (d) =>
        d.toJS() as { kind: string; spec?: { template?: { spec?: { containers: { securityContext?: unknown }[] } } } },
    );
    const contexts = docs
      .filter((d) => d.kind === 'Deployment')
      .flatMap((d) => d.spec?.template?.spec?.containers ?? [])
      .map((c) => c.securityContext);
    expect(contexts.length).toBeGreaterThan(0);
    for (const context of contexts) {
      // false would set no_new_privs, which voids the file capability (shown below).
      expect(context).toMatchObject({
        allowPrivilegeEscalation: true,
        capabilities: { drop: ['ALL'], add: ['NET_RAW'] },
      });
    }
  });

  it('package.json keeps supporting Node 20.19 and later', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=20.19.0');
  });
});

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['setcap', 'setpriv'].filter((tool) => !has(tool));
const isRoot = process.getuid?.() === 0;
const skipReason = !isRoot
  ? 'the tests do not run as root (setcap and setpriv need it)'
  : missing.length > 0
    ? `${missing.join(' and ')} not installed (Debian packages libcap2-bin, util-linux)`
    : null;
if (skipReason && isRoot && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  // .ci/run installs libcap2-bin; only a CI machine without it gets here.
  throw new Error(`the ICMP capability test needs ${missing.join(' and ')} (Debian packages libcap2-bin, util-linux)`);
}
if (skipReason) {
  process.stderr.write(`[picket tests] SKIPPING the ICMP file-capability test: ${skipReason}.\n`);
}

/** What the probe script saw: whether an ICMP raw socket opened, and V8's heap limit in MB. */
interface Seen {
  icmp: string;
  heapMb: number;
}

(skipReason ? describe.skip : describe)('CAP_NET_RAW for an unprivileged agent (file capability, ambient)', () => {
  let dir: string;
  let node: string;
  const addon = dirname(createRequire(import.meta.url).resolve('raw-socket/package.json'));
  const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
  /** The container's capability bounding set under cap_drop: [ALL], cap_add: [NET_RAW]. */
  const CONTAINER = ['--inh-caps=-all', '--bounding-set=-all,+net_raw'];

  /**
   * Runs the probe script with `binary` as nobody. setpriv execs a shell first, so node starts
   * from a process with no permitted capabilities, as a container's process does.
   */
  function probe(binary: string, setprivFlags: string[], env: Record<string, string> = {}) {
    const run = spawnSync(
      'setpriv',
      [...NOBODY, ...setprivFlags, 'sh', '-c', 'exec "$0" "$@"', binary, join(dir, 'probe.cjs'), addon],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 20_000 },
    );
    const seen = run.status === 0 ? (JSON.parse(run.stdout) as Seen) : null;
    return { status: run.status, stderr: run.stderr, seen };
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'picket-netraw-'));
    chmodSync(dir, 0o755);
    node = join(dir, 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    writeFileSync(
      join(dir, 'probe.cjs'),
      [
        'const raw = require(process.argv[2]);',
        "let icmp = 'open';",
        'try { raw.createSocket({ protocol: raw.Protocol.ICMP }).close(); }',
        "catch (error) { icmp = 'refused: ' + error.message; }",
        "const heapMb = Math.round(require('v8').getHeapStatistics().heap_size_limit / 1048576);",
        'process.stdout.write(JSON.stringify({ icmp, heapMb }));',
      ].join('\n'),
    );
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('without a file capability, the user cannot open an ICMP raw socket (cap_add alone is not enough)', () => {
    const { status, seen } = probe(node, CONTAINER);
    expect(status).toBe(0);
    expect(seen?.icmp).toMatch(/^refused: .*not permitted/i);
  });

  describe('with setcap cap_net_raw+ep on the binary', () => {
    beforeAll(() => {
      const setcap = spawnSync('setcap', ['cap_net_raw+ep', node], { encoding: 'utf8' });
      if (setcap.status !== 0) throw new Error(`setcap failed on ${node}: ${setcap.stderr}`);
    });

    it('the user opens an ICMP raw socket', () => {
      const { status, seen, stderr } = probe(node, CONTAINER);
      expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
      expect(seen?.icmp).toBe('open');
    });

    it('no_new_privs (allowPrivilegeEscalation: false, NoNewPrivileges=true) voids the file capability', () => {
      const { status, seen } = probe(node, [...CONTAINER, '--no-new-privs']);
      expect(status).toBe(0);
      expect(seen?.icmp).toMatch(/^refused: /);
    });

    it('without NET_RAW in the bounding set (no cap_add) the binary does not start at all', () => {
      const { status, stderr } = probe(node, ['--inh-caps=-all', '--bounding-set=-all']);
      expect(status).not.toBe(0);
      expect(stderr).toMatch(/not permitted/i);
    });

    it('Node ignores NODE_OPTIONS in such a process: the image gives its heap limits as flags', () => {
      const withEnv = probe(node, CONTAINER, { NODE_OPTIONS: '--max-old-space-size=96' });
      expect(withEnv.seen?.heapMb).toBeGreaterThan(200);
      const plain = join(dir, 'plain-node');
      copyFileSync(process.execPath, plain);
      chmodSync(plain, 0o755);
      expect(probe(plain, CONTAINER, { NODE_OPTIONS: '--max-old-space-size=96' }).seen?.heapMb).toBeLessThan(200);
    });
  });

  it('AmbientCapabilities=CAP_NET_RAW (the systemd unit) works with no_new_privs and keeps NODE_OPTIONS', () => {
    const plain = join(dir, 'ambient-node');
    copyFileSync(process.execPath, plain);
    chmodSync(plain, 0o755);
    const { status, seen } = probe(
      plain,
      ['--inh-caps=-all,+net_raw', '--ambient-caps=-all,+net_raw', '--bounding-set=-all,+net_raw', '--no-new-privs'],
      { NODE_OPTIONS: '--max-old-space-size=96' },
    );
    expect(status).toBe(0);
    expect(seen?.icmp).toBe('open');
    expect(seen?.heapMb).toBeLessThan(200);
  });
});
