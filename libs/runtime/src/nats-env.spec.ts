import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { writeNatsPki, type NatsPkiFiles } from '../../../test/support/nats-secure.js';
import { configVariables, loadEnv } from './env.js';
import { NATS_URL_PATTERN, NatsEnv, natsSecurityOf, natsSecurityProblems } from './nats-env.js';

describe('NatsEnv', () => {
  it('keeps trying for ever by default, and takes a whole number of seconds up to a day', () => {
    expect(loadEnv(NatsEnv, {}).NATS_CONNECT_TIMEOUT_SECONDS).toBe(0);
    expect(loadEnv(NatsEnv, { NATS_CONNECT_TIMEOUT_SECONDS: '30' }).NATS_CONNECT_TIMEOUT_SECONDS).toBe(30);
    expect(loadEnv(NatsEnv, { NATS_CONNECT_TIMEOUT_SECONDS: '86400' }).NATS_CONNECT_TIMEOUT_SECONDS).toBe(86_400);
  });

  it.each(['-1', '1.5', 'soon', '86401'])('refuses NATS_CONNECT_TIMEOUT_SECONDS=%s, naming the variable', (value) => {
    expect(() => loadEnv(NatsEnv, { NATS_CONNECT_TIMEOUT_SECONDS: value })).toThrow(
      /NATS_CONNECT_TIMEOUT_SECONDS \(".*"\): /,
    );
  });

  it('brings the egress variables along (both apps extend it)', () => {
    expect(configVariables(NatsEnv)).toEqual(expect.arrayContaining(['EGRESS_POLICY', 'NATS_CONNECT_TIMEOUT_SECONDS']));
  });
});

describe('NATS security settings (docs/decisions/0019-securing-nats.md)', () => {
  let dir: string;
  let pki: NatsPkiFiles;
  let seed: string;
  let creds: string;
  let garbage: string;
  const URL = 'tls://nats.example:4222';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'picket-nats-env-'));
    pki = await writeNatsPki(dir);
    const user = nkeys.createUser();
    const seedText = new TextDecoder().decode(user.getSeed());
    seed = join(dir, 'user.nk');
    writeFileSync(seed, `${seedText}\n`);
    creds = join(dir, 'user.creds');
    writeFileSync(
      creds,
      [
        '-----BEGIN NATS USER JWT-----',
        'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln',
        '------END NATS USER JWT------',
        '',
        '-----BEGIN USER NKEY SEED-----',
        seedText,
        '------END USER NKEY SEED------',
        '',
      ].join('\n'),
    );
    garbage = join(dir, 'garbage');
    writeFileSync(garbage, 'not a certificate, not a key\n');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const withUrl = (env: Record<string, string>) =>
    natsSecurityProblems({ ...loadEnv(NatsEnv, env), NATS_URL: env.NATS_URL });

  it('accepts each single way to authenticate, with or without TLS files', () => {
    const settings: Record<string, string>[] = [
      {},
      { NATS_URL: 'nats://127.0.0.1:4222' },
      { NATS_URL: 'nats://user:pass@h:4222' },
      { NATS_URL: 'tls://tok@h:4222', NATS_CA_FILE: pki.ca },
      { NATS_URL: URL, NATS_USER: 'agent', NATS_PASSWORD: 'x' },
      { NATS_URL: URL, NATS_TOKEN: 't' },
      { NATS_URL: URL, NATS_CREDS_FILE: seed },
      { NATS_URL: URL, NATS_CREDS_FILE: creds, NATS_CA_FILE: pki.ca },
      { NATS_URL: URL, NATS_CERT_FILE: pki.clientCert, NATS_KEY_FILE: pki.clientKey, NATS_CA_FILE: pki.ca },
    ];
    for (const env of settings) {
      expect({ env, problems: withUrl(env) }).toEqual({ env, problems: [] });
    }
  });

  it.each([
    [
      'two ways to authenticate',
      { NATS_URL: URL, NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_TOKEN: 't' },
      'NATS_USER/NATS_PASSWORD, NATS_TOKEN: choose one way to authenticate to NATS',
    ],
    [
      'credentials in the URL and a creds file',
      { NATS_URL: 'tls://u:p@h:4222', NATS_CREDS_FILE: '<SEED>' },
      'credentials in NATS_URL, NATS_CREDS_FILE: choose one way to authenticate to NATS',
    ],
    [
      'a token in the URL and a user',
      { NATS_URL: 'nats://tok@h:4222', NATS_USER: 'u', NATS_PASSWORD: 'p' },
      'credentials in NATS_URL, NATS_USER/NATS_PASSWORD: choose one way to authenticate to NATS',
    ],
    ['a user without password', { NATS_URL: URL, NATS_USER: 'u' }, 'NATS_USER and NATS_PASSWORD: set both or neither'],
    [
      'a password without user',
      { NATS_URL: URL, NATS_PASSWORD: 'p' },
      'NATS_USER and NATS_PASSWORD: set both or neither',
    ],
    [
      'a certificate without key',
      { NATS_URL: URL, NATS_CERT_FILE: '<CERT>' },
      'NATS_CERT_FILE and NATS_KEY_FILE: set both or neither',
    ],
    [
      'a key without certificate',
      { NATS_URL: URL, NATS_KEY_FILE: '<KEY>' },
      'NATS_CERT_FILE and NATS_KEY_FILE: set both or neither',
    ],
    [
      'a missing CA file',
      { NATS_URL: URL, NATS_CA_FILE: '/nonexistent/ca.crt' },
      'NATS_CA_FILE (/nonexistent/ca.crt): cannot be read (ENOENT)',
    ],
    [
      'a CA file that is no certificate',
      { NATS_URL: URL, NATS_CA_FILE: '<GARBAGE>' },
      'NATS_CA_FILE (<GARBAGE>): not a PEM certificate',
    ],
    [
      'a key that is not the certificate’s',
      { NATS_URL: URL, NATS_CERT_FILE: '<CERT>', NATS_KEY_FILE: '<SERVER_KEY>' },
      'NATS_KEY_FILE (<SERVER_KEY>): not the private key of the certificate in NATS_CERT_FILE',
    ],
    [
      'a creds file that holds neither',
      { NATS_URL: URL, NATS_CREDS_FILE: '<GARBAGE>' },
      'NATS_CREDS_FILE (<GARBAGE>): holds neither NATS user credentials (.creds) nor an NKey user seed',
    ],
    [
      'security settings without NATS_URL',
      { NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_CA_FILE: '<CA>' },
      'NATS_USER, NATS_PASSWORD, NATS_CA_FILE: set without NATS_URL (nothing to connect to)',
    ],
  ])('refuses %s, naming the variables', (_name, given: Record<string, string>, problem) => {
    const files: Record<string, string> = {
      '<SEED>': seed,
      '<CERT>': pki.clientCert,
      '<KEY>': pki.clientKey,
      '<SERVER_KEY>': pki.serverKey,
      '<CA>': pki.ca,
      '<GARBAGE>': garbage,
    };
    const env = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, files[v] ?? v]));
    const expected = Object.entries(files).reduce((text, [name, path]) => text.replaceAll(name, path), problem);
    expect(withUrl(env)).toContain(expected);
  });

  it('refuses a password or token without ever showing it', () => {
    const problems = withUrl({ NATS_URL: 'nats://u:hunter2@h', NATS_TOKEN: 's3cr3t', NATS_PASSWORD: 'pa55' });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).not.toMatch(/hunter2|s3cr3t|pa55/);
  });

  it('builds the link settings from the variables', () => {
    expect(
      natsSecurityOf({
        NATS_USER: 'agent',
        NATS_PASSWORD: 'p',
        NATS_CA_FILE: '/ca',
        NATS_CERT_FILE: '/c',
        NATS_KEY_FILE: '/k',
      }),
    ).toEqual({ user: 'agent', pass: 'p', caFile: '/ca', certFile: '/c', keyFile: '/k' });
    expect(natsSecurityOf({ NATS_TOKEN: 't' })).toEqual({ token: 't' });
    expect(natsSecurityOf({ NATS_CREDS_FILE: '/f' })).toEqual({ credsFile: '/f' });
    expect(natsSecurityOf({})).toEqual({});
  });

  it('lists the new variables among those both apps read', () => {
    expect(configVariables(NatsEnv)).toEqual(
      expect.arrayContaining([
        'NATS_USER',
        'NATS_PASSWORD',
        'NATS_TOKEN',
        'NATS_CREDS_FILE',
        'NATS_CA_FILE',
        'NATS_CERT_FILE',
        'NATS_KEY_FILE',
      ]),
    );
  });
});

describe('NATS_URL_PATTERN', () => {
  it.each([
    'nats://127.0.0.1:4222',
    'nats://a:4222,nats://b:4222, nats://c:4222',
    'tls://nats.example:4222',
    'tls://a:4222, tls://b:4222',
    'nats://user:pass@h:4222',
    'tls://token@h',
    'NATS://H:4222',
  ])('accepts %s', (url) => {
    expect(NATS_URL_PATTERN.test(url)).toBe(true);
  });

  it.each([
    'http://h:4222',
    'h:4222',
    'nats://a:4222,tls://b:4222',
    'tls://a:4222, nats://b:4222',
    'nats://',
    'nats://a b',
  ])('refuses %s', (url) => {
    expect(NATS_URL_PATTERN.test(url)).toBe(false);
  });
});
