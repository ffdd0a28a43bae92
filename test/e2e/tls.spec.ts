import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/faults.js';
import { startPicket, type RunningProcess } from '../support/processes.js';
import { testPki } from '../support/tls.js';
import { waitFor } from '../support/wait.js';

type Version = 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

/** A TLS handshake with exactly `version`; resolves with the socket's protocol and certificate fingerprint. */
function handshake(
  port: number,
  version: Version,
  ca: string,
): Promise<{ protocol: string | null; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connect({
      host: '127.0.0.1',
      port,
      ca,
      servername: 'localhost',
      minVersion: version,
      maxVersion: version,
      // Let this client offer TLS 1.1 at all (OpenSSL 3 refuses it by default): any refusal then comes from the server.
      ciphers: 'DEFAULT@SECLEVEL=0',
      rejectUnauthorized: false,
    });
    socket.once('secureConnect', () => {
      const result = { protocol: socket.getProtocol(), fingerprint: socket.getPeerCertificate().fingerprint256 };
      socket.end();
      resolve(result);
    });
    socket.once('error', reject);
  });
}

async function selfSigned(name: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}

describe('HTTPS on the coordinator (TLS_CERT_FILE / TLS_KEY_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'picket-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  let ca = '';
  let db: TestDatabase;
  let c: RunningCoordinator;
  let port = 0;

  beforeAll(async () => {
    const pki = await testPki();
    ca = pki.ca;
    writeFileSync(certFile, pki.server.cert);
    writeFileSync(keyFile, pki.server.key);
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, { env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } });
    port = Number(new URL(c.baseUrl).port);
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses TLS 1.1 with a protocol_version alert from the server', async () => {
    await expect(handshake(port, 'TLSv1.1', ca)).rejects.toThrow(/alert protocol version/i);
  });

  it.each(['TLSv1.2', 'TLSv1.3'] as const)('serves %s', async (version) => {
    expect((await handshake(port, version, ca)).protocol).toBe(version);
  });

  it('answers the API over HTTPS', async () => {
    const { request } = await import('node:https');
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/api/openapi.json', ca, servername: 'localhost' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .once('error', reject)
        .end();
    });
    expect(status).toBe(200);
  });

  it('refuses at boot a key that does not match, or one file without the other', async () => {
    const other = await selfSigned('other');
    const otherKey = join(dir, 'other-key.pem');
    writeFileSync(otherKey, other.key);
    const load = (env: Record<string, string>) => () => loadCoordinatorConfig(env);
    expect(load({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: otherKey })).toThrow(ConfigError);
    expect(load({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: otherKey })).toThrow(/TLS_KEY_FILE/);
    expect(load({ TLS_CERT_FILE: certFile })).toThrow(/set both/);
    expect(load({ TLS_CERT_FILE: join(dir, 'missing.pem'), TLS_KEY_FILE: keyFile })).toThrow(/TLS_CERT_FILE/);
  });
});

describe('certificate reload on SIGHUP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'picket-tls-reload-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  let coordinator: RunningProcess;
  let port = 0;

  beforeAll(async () => {
    const first = await selfSigned('first');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    port = await freePort();
    coordinator = startPicket('start', {
      DATABASE_URL: `sqlite:${join(dir, 'picket.db')}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      CHECKS_ENABLED: 'false',
      TLS_CERT_FILE: certFile,
      TLS_KEY_FILE: keyFile,
    });
    await waitFor(
      'the HTTPS server',
      () =>
        handshake(port, 'TLSv1.3', '')
          .then(() => true)
          .catch(() => undefined),
      120_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${coordinator.output()}`);
    });
  }, 180_000);

  afterAll(async () => {
    await coordinator?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the new certificate to new connections, and keeps the old one when the new files are bad', async () => {
    const before = (await handshake(port, 'TLSv1.3', '')).fingerprint;
    const second = await selfSigned('second');
    writeFileSync(certFile, second.cert);
    writeFileSync(keyFile, second.key);
    coordinator.child.kill('SIGHUP');
    const after = await waitFor('the new certificate', async () => {
      const { fingerprint } = await handshake(port, 'TLSv1.3', '');
      return fingerprint !== before ? fingerprint : undefined;
    });
    expect(after).not.toBe(before);
    expect(coordinator.output()).toMatch(/certificate reloaded from/);

    writeFileSync(keyFile, (await selfSigned('third')).key); // no longer matches the certificate
    coordinator.child.kill('SIGHUP');
    await waitFor('the refusal in the log', () =>
      Promise.resolve(/certificate not reloaded/.test(coordinator.output()) ? true : undefined),
    );
    expect((await handshake(port, 'TLSv1.3', '')).fingerprint).toBe(after);
    expect(coordinator.child.exitCode).toBeNull(); // SIGHUP did not stop the server
  });
});
