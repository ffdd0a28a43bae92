import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { checkServerIdentity, connect, TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { createHttpsProber } from './https.prober.js';
import { certificateNames } from './peer-identity.js';
import type { ProbeOutcome } from './prober.js';
import { testAuthority } from '../../../test/support/tls.js';

// The probes' HTTPS agent checks the server's name on the leaf alone (peer-identity.ts). These
// tests hold it to Node's own verdict on the whole chain, for every kind of name a certificate
// can carry, and show that the chain is no longer translated.

const NOT_AFTER = new Date('2032-03-04T05:06:07Z');

/** subjectAltName entries: 2 DNS, 6 URI, 7 IP address. */
type AltName = { type: 2 | 6; value: string } | { type: 7; ip: string };

/** Certificates by what they name: the subject's CN, and the subjectAltName entries if any. */
const CERTIFICATES: Record<string, { cn: string; altNames?: AltName[] }> = {
  cnOnly: { cn: 'legacy.test' },
  sanAndCn: { cn: 'cn.test', altNames: [{ type: 2, value: 'san.test' }] },
  wildcard: { cn: 'wild', altNames: [{ type: 2, value: '*.wild.test' }] },
  ipSan: { cn: 'ip', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ipInCnOnly: { cn: '127.0.0.1' },
  uriAndCn: { cn: 'uri.test', altNames: [{ type: 6, value: 'https://uri.test/' }] },
};

/** [certificate, host in the URL, whether the name check passes] */
const CASES: [keyof typeof CERTIFICATES, string, boolean][] = [
  ['cnOnly', 'legacy.test', true], // no subjectAltName: the CN is the name
  ['cnOnly', 'other.test', false],
  ['sanAndCn', 'san.test', true],
  ['sanAndCn', 'cn.test', false], // a DNS altname makes the CN irrelevant
  ['wildcard', 'a.wild.test', true],
  ['wildcard', 'a.b.wild.test', false], // a wildcard covers one label
  ['wildcard', 'wild.test', false],
  ['ipSan', '127.0.0.1', true],
  ['ipInCnOnly', '127.0.0.1', false], // an address is matched against IP altnames only
  ['uriAndCn', 'uri.test', true], // altnames without a DNS name: the CN still counts
];

let ca: string;
const ports: Partial<Record<keyof typeof CERTIFICATES, number>> = {};
const leaves: Partial<Record<keyof typeof CERTIFICATES, X509Certificate>> = {};
const servers: Server[] = [];

beforeAll(async () => {
  const authority = await testAuthority('Picket Identity Test CA');
  ca = authority.cert;
  for (const [name, { cn, altNames }] of Object.entries(CERTIFICATES)) {
    const leaf = await generate([{ name: 'commonName', value: cn }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ca: { key: authority.private, cert: authority.cert },
      notBeforeDate: new Date(Date.now() - 86_400_000),
      notAfterDate: NOT_AFTER,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'extKeyUsage', serverAuth: true },
        ...(altNames === undefined ? [] : [{ name: 'subjectAltName' as const, altNames }]),
      ],
    });
    const server = createServer({ key: leaf.private, cert: leaf.cert }, (_request, response) => response.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    ports[name] = (server.address() as AddressInfo).port;
    leaves[name] = new X509Certificate(leaf.cert);
  }
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

afterEach(() => {
  jest.restoreAllMocks();
});

/** Every *.test name is 127.0.0.1. */
const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

function probe(certificate: keyof typeof CERTIFICATES, host: string): Promise<ProbeOutcome> {
  const check = createHttpsProber({ lookup: loopbackLookup, ca });
  return check(
    { url: `https://${host}:${ports[certificate]}/`, check_certificate_expiration: true },
    { signal: new AbortController().signal, timeoutMs: 5000 },
  );
}

/**
 * Node's own verdict: checkServerIdentity on the whole chain, as a plain TLS client gets it. Also
 * checks that the names the probes read of the leaf are the ones in Node's translation.
 */
async function nodeVerdict(certificate: keyof typeof CERTIFICATES, host: string): Promise<boolean> {
  const socket = connect({
    host: '127.0.0.1',
    port: ports[certificate],
    ca,
    servername: host.startsWith('127.') ? undefined : host,
    checkServerIdentity: () => undefined,
  });
  await once(socket, 'secureConnect');
  const chain = socket.getPeerCertificate(true);
  const verdict = checkServerIdentity(host, chain);
  const leaf = socket.getPeerX509Certificate();
  socket.destroy();
  if (leaf === undefined) throw new Error('no peer certificate');
  const names = certificateNames(leaf);
  expect(names.subjectaltname).toBe(chain.subjectaltname);
  expect(names.subject.CN).toEqual(chain.subject.CN);
  return verdict === undefined;
}

describe('the probes’ host name check', () => {
  it('runs against certificates that name what each case relies on', () => {
    const altNames = (certificate: keyof typeof CERTIFICATES) => leaves[certificate]?.subjectAltName;
    expect(altNames('cnOnly')).toBeUndefined();
    expect(altNames('ipInCnOnly')).toBeUndefined();
    expect(altNames('sanAndCn')).toBe('DNS:san.test');
    expect(altNames('wildcard')).toBe('DNS:*.wild.test');
    expect(altNames('ipSan')).toBe('IP Address:127.0.0.1');
    expect(altNames('uriAndCn')).toBe('URI:https://uri.test/');
  });

  it.each(CASES)(
    'certificate %s, host %s: passes = %s, as Node decides on the whole chain',
    async (certificate, host, passes) => {
      expect(await nodeVerdict(certificate, host)).toBe(passes);
      const outcome = await probe(certificate, host);
      if (passes) {
        expect(outcome).toMatchObject({ status: 'up', http_status: 200 });
      } else {
        expect(outcome).toMatchObject({ status: 'down', phase: 'tls', error: `certificate is not valid for ${host}` });
      }
    },
  );

  it('translates no certificate for a check, expiry date included', async () => {
    // Calls through to Node's method, recording each call.
    const translations = jest.spyOn(TLSSocket.prototype, 'getPeerCertificate');
    const outcome = await probe('sanAndCn', 'san.test');
    expect(outcome.status).toBe('up');
    expect(outcome.cert_not_after).toBe(Math.floor(NOT_AFTER.getTime() / 1000));
    expect(translations).not.toHaveBeenCalled();
  });
});
