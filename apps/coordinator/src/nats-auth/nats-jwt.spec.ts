import { describe, expect, it } from '@jest/globals';
import { createUser, decode, type Account, type Operator, type User } from '@nats-io/jwt';
import { enrollTokenUser } from '#contracts';
import {
  accountJwtRevoking,
  createNatsAuthMaterial,
  enrollmentTokenJwt,
  privateAgentJwt,
  privateAgentPermissions,
  privateAgentUser,
  publicAgentPermissions,
  REPLY_WINDOW_NANOS,
} from './nats-jwt.js';

const ACCOUNT = '65a1b2c3d4e5f60718293a4b';

describe('privateAgentPermissions', () => {
  it.each([
    ['picket', ACCOUNT, 'office', 'picket.private.65a1b2c3d4e5f60718293a4b.office'],
    ['acme.picket', ACCOUNT, 'lab-2', 'acme.picket.private.65a1b2c3d4e5f60718293a4b.lab-2'],
  ])('%s / %s / %s: only its probe subjects (queue group), its heartbeat, replies', (prefix, account, region, base) => {
    expect(privateAgentPermissions(prefix, account, region)).toEqual({
      pub: { allow: [`${base}.heartbeat`] },
      sub: { allow: [`${base}.probe picket-agents`, `${base}.probe.batch picket-agents`] },
      // One reply per check of a batch (docs/decisions/0034-batched-probe-traffic.md).
      resp: { max: 100, ttl: REPLY_WINDOW_NANOS },
    });
  });
});

describe('publicAgentPermissions', () => {
  it.each([
    ['picket', 'picket.probe.*', 'picket.agents.heartbeat'],
    ['acme.picket', 'acme.picket.probe.*', 'acme.picket.agents.heartbeat'],
  ])('%s: every public region in the queue group, the public heartbeat, replies', (prefix, probe, pub) => {
    expect(publicAgentPermissions(prefix)).toEqual({
      pub: { allow: [pub] },
      sub: { allow: [`${probe} picket-agents`, `${probe}.batch picket-agents`] },
      resp: { max: 100, ttl: REPLY_WINDOW_NANOS },
    });
  });
});

describe('NATS JWT material', () => {
  it('chains operator → accounts (signed by the operator signing key) → users (signed by the account signing key)', async () => {
    const m = await createNatsAuthMaterial();
    const operator = decode<Operator>(m.operator.jwt);
    expect(operator.nats.system_account).toBe(m.systemAccount.publicKey);
    const [operatorSigner] = operator.nats.signing_keys as string[];
    expect(operatorSigner).not.toBe(m.operator.publicKey);
    const account = decode<Account>(m.account.jwt);
    expect(account).toMatchObject({ iss: operatorSigner, sub: m.account.publicKey });
    expect(account.nats.limits).toMatchObject({ conn: -1, subs: -1 });
    expect(decode<Account>(m.systemAccount.jwt).iss).toBe(operatorSigner);
    // The public agents' shared user: signed by the account signing key, the agent user's rights.
    const publicAgentJwt = /-----BEGIN NATS USER JWT-----\n(.+)\n/.exec(m.publicAgentCreds)![1]!;
    const publicAgent = decode<User>(publicAgentJwt);
    expect(account.nats.signing_keys).toContain(publicAgent.iss);
    expect(publicAgent.nats).toMatchObject({
      issuer_account: m.account.publicKey,
      ...publicAgentPermissions('picket'),
    });

    const expiresAt = new Date('2030-01-02T03:04:05Z');
    const agent = await privateAgentUser({
      prefix: 'picket',
      accountId: ACCOUNT,
      region: 'office',
      name: 'office-1',
      accountPublicKey: m.account.publicKey,
      signingSeed: `${m.accountSigningSeed}\n`,
      expiresAt,
    });
    const user = decode<User>(agent.jwt);
    expect(user).toMatchObject({ sub: agent.publicKey, name: 'office-1', exp: expiresAt.getTime() / 1000 });
    expect(account.nats.signing_keys).toContain(user.iss);
    expect(user.nats).toMatchObject({
      issuer_account: m.account.publicKey,
      ...privateAgentPermissions('picket', ACCOUNT, 'office'),
    });
    expect(agent.creds).toContain(agent.jwt);
    const unbounded = await privateAgentUser({
      prefix: 'picket',
      accountId: ACCOUNT,
      region: 'office',
      name: 'office-2',
      accountPublicKey: m.account.publicKey,
      signingSeed: m.accountSigningSeed,
    });
    expect(decode(unbounded.jwt).exp).toBeUndefined();
    await expect(
      privateAgentUser({
        prefix: 'picket',
        accountId: ACCOUNT,
        region: 'office',
        name: 'x',
        accountPublicKey: m.account.publicKey,
        signingSeed: m.operatorSigningSeed,
      }),
    ).rejects.toThrow('not an account key');
  });

  it('revokes a user in a re-signed account JWT, keeping its signing keys, limits and earlier revocations', async () => {
    const m = await createNatsAuthMaterial();
    const first = await accountJwtRevoking(m.account.jwt, m.operatorSigningSeed, { UAAA: 1_000_000 });
    const second = await accountJwtRevoking(first, m.operatorSigningSeed, { UBBB: 2_000_000 });
    const claims = decode<Account>(second);
    const original = decode<Account>(m.account.jwt);
    expect(claims).toMatchObject({ sub: m.account.publicKey, iss: original.iss, name: original.name });
    expect(claims.nats).toMatchObject({
      signing_keys: original.nats.signing_keys,
      limits: original.nats.limits,
      revocations: { UAAA: 1_000_000, UBBB: 2_000_000 },
    });
    await expect(accountJwtRevoking(m.account.jwt, m.accountSigningSeed, { UAAA: 1 })).rejects.toThrow(
      'not an operator key',
    );
  });
});

describe('enrollment JWTs', () => {
  it('a token is a bearer JWT of the account that may only ask for enrollment and read its own answer, until it expires', async () => {
    const m = await createNatsAuthMaterial();
    const expiresAt = new Date(Date.UTC(2026, 10, 27, 12));
    const token = await enrollmentTokenJwt({
      prefix: 'acme.picket',
      name: 'enroll:1',
      accountPublicKey: m.account.publicKey,
      signingSeed: m.accountSigningSeed,
      expiresAt,
    });
    const claims = decode<User>(token);
    const signer = decode<Account>(m.account.jwt).nats.signing_keys?.[0];
    expect(claims).toMatchObject({ name: 'enroll:1', iss: signer, exp: expiresAt.getTime() / 1000 });
    expect(claims.nats).toMatchObject({
      bearer_token: true,
      issuer_account: m.account.publicKey,
      pub: { allow: ['acme.picket.agents.enroll'] },
      sub: { allow: [`_INBOX_ENROLL.${claims.sub}.>`] },
    });
    expect(claims.nats.resp).toBeUndefined();
    // What the agent reads from it to choose its inbox prefix.
    expect(enrollTokenUser(token)).toBe(claims.sub);
    expect(enrollTokenUser('a.b.c')).toBeNull();
  });

  it("an enrolled agent's JWT names the public key it sent, with its region's permissions", async () => {
    const m = await createNatsAuthMaterial();
    const user = createUser();
    const jwt = await privateAgentJwt({
      prefix: 'picket',
      accountId: ACCOUNT,
      region: 'office',
      name: 'agent-1',
      accountPublicKey: m.account.publicKey,
      signingSeed: m.accountSigningSeed,
      userPublicKey: user.getPublicKey(),
    });
    const claims = decode<User>(jwt);
    expect(claims.sub).toBe(user.getPublicKey());
    expect(claims.exp).toBeUndefined();
    expect(claims.nats).toMatchObject({
      ...privateAgentPermissions('picket', ACCOUNT, 'office'),
      issuer_account: m.account.publicKey,
    });
    expect(claims.nats.bearer_token).toBeUndefined();
  });
});
