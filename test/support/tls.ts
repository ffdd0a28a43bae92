import { generate } from 'selfsigned';

export interface TestPki {
  /** The CA certificate (PEM) to trust in clients. */
  ca: string;
  /** A server key and certificate for 127.0.0.1, ::1 and localhost, signed by the CA. */
  server: { key: string; cert: string };
}

let cached: Promise<TestPki> | undefined;

/** A throwaway certificate authority (EC, SHA-256) named `commonName`. */
export function testAuthority(commonName: string): ReturnType<typeof generate> {
  return generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
}

/** A throwaway CA and a loopback server certificate, made once per test file. */
export function testPki(): Promise<TestPki> {
  cached ??= (async () => {
    const ca = await testAuthority('Picket Test CA');
    const server = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      notBeforeDate: new Date(Date.now() - 86_400_000),
      notAfterDate: new Date(Date.now() + 30 * 86_400_000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    return { ca: ca.cert, server: { key: server.private, cert: server.cert } };
  })();
  return cached;
}
