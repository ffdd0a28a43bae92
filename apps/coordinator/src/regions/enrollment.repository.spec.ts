import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { AccountEntity } from '../auth/account.entity.js';
import { openDataSource, parseDatabaseUrl } from '../database/data-source.js';
import { Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { ENTITIES } from '../entities.js';
import { AgentTokenEntity, PrivateRegionAgentEntity } from './enrollment.entity.js';
import { EnrollmentRepository, type ExchangeInput } from './enrollment.repository.js';
import { PrivateRegionEntity } from './private-region.entity.js';
import { PrivateRegionsRepository } from './private-regions.repository.js';

const ACCOUNT = 'a'.repeat(24);
const NOW = 1_790_000_000;
const key = (c: string) => `U${c.repeat(55)}`;

/** Enrollment tokens consumed once, on both databases (docs/decisions/0030-private-regions.md). */
describe.each(testDatabases())('enrollment storage on $name', (kind) => {
  let db: TestDatabase;
  let ds: DataSource;
  let repository: EnrollmentRepository;
  let regions: PrivateRegionsRepository;
  let ids = 0;

  const token = async (hash: string, region = 'office', expiresAt = NOW + 3600) => {
    const row = {
      id: `${++ids}`.padStart(24, '0'),
      accountId: ACCOUNT,
      regionId: region,
      tokenHash: hash,
      createdAt: NOW,
      expiresAt,
      usedAt: null,
      usedByKey: null,
    } satisfies AgentTokenEntity;
    await repository.insertToken(row);
    return row;
  };
  const exchange = (hash: string, publicKey: string, over: Partial<ExchangeInput> = {}) =>
    repository.exchange({
      tokenHash: hash,
      publicKey,
      name: 'agent',
      accountId: ACCOUNT,
      regionId: 'office',
      now: NOW,
      agentId: `${++ids}`.padStart(24, 'f'),
      ...over,
    });

  beforeAll(async () => {
    db = await kind.create();
    ds = await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES);
    await migrate(ds);
    await ds.manager.insert(AccountEntity, { id: ACCOUNT, name: 'a', subscriptionStatus: 'active', createdAt: NOW });
    for (const regionId of ['office', 'lab'])
      await ds.manager.insert(PrivateRegionEntity, {
        id: regionId.padStart(24, '0').replace(/[^0-9a-f]/g, 'a'),
        accountId: ACCOUNT,
        regionId,
        name: regionId,
        createdAt: NOW,
      });
    const database = new Database(ds);
    repository = new EnrollmentRepository(database);
    regions = new PrivateRegionsRepository(database);
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  it('ten agents racing for one token: one is enrolled, the others are told it is used', async () => {
    await token('race');
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => exchange('race', key(String.fromCharCode(65 + i)))),
    );
    expect(outcomes.filter((o) => o.outcome === 'enrolled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === 'used')).toHaveLength(9);
    expect(await ds.manager.countBy(PrivateRegionAgentEntity, { regionId: 'office' })).toBe(1);
  });

  it('the same agent asking again gets its enrollment back; a revoked one does not', async () => {
    await token('again');
    const first = await exchange('again', key('K'));
    expect(first.outcome).toBe('enrolled');
    const second = await exchange('again', key('K'));
    expect(second).toMatchObject({ outcome: 'again', agent: { publicKey: key('K') } });
    if (!('agent' in first)) throw new Error('not enrolled');
    expect(await repository.revoke(ACCOUNT, 'office', first.agent.id, NOW + 5)).toBe('revoked');
    expect(await repository.revoke(ACCOUNT, 'office', first.agent.id, NOW + 6)).toBe('already');
    expect(await repository.revoke(ACCOUNT, 'lab', first.agent.id, NOW + 6)).toBe('none');
    expect((await exchange('again', key('K'))).outcome).toBe('used');
    expect((await repository.revocations())[key('K')]).toBe(NOW + 5);
  });

  it('an expired, unknown or other-region token enrolls nobody; the last stays usable', async () => {
    await token('old', 'office', NOW);
    expect((await exchange('old', key('O'))).outcome).toBe('expired');
    expect((await exchange('nothing', key('O'))).outcome).toBe('unknown');
    await token('lab-token', 'lab');
    expect(await exchange('lab-token', key('L'))).toEqual({
      outcome: 'elsewhere',
      accountId: ACCOUNT,
      regionId: 'lab',
    });
    expect((await exchange('lab-token', key('L'), { regionId: 'lab' })).outcome).toBe('enrolled');
  });

  it('deleting a region drops its tokens and revokes its agents, whose revocations outlive it', async () => {
    await token('unused-lab', 'lab');
    const before = (await repository.agents(ACCOUNT, 'lab')).map((a) => a.publicKey);
    expect(before).toEqual([key('L')]);
    expect(await regions.delete(ACCOUNT, 'lab', NOW + 9)).toBe(true);
    expect(await ds.manager.countBy(AgentTokenEntity, { regionId: 'lab' })).toBe(0);
    expect(await repository.agents(ACCOUNT, 'lab')).toEqual([]);
    expect((await repository.revocations())[key('L')]).toBe(NOW + 9);
    // Other regions' agents are untouched.
    expect((await repository.agents(ACCOUNT, 'office')).length).toBe(1);
  });
});
