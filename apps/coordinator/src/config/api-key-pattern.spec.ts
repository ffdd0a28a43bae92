import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';
import { weakApiKeyProblem } from './api-key-pattern.js';

const GENERATE = 'openssl rand -hex 32';

/** What loading the configuration with this BOOTSTRAP_API_KEY says (null: accepted). */
function bootstrapKeyProblem(key: string): string | null {
  try {
    loadCoordinatorConfig({ BOOTSTRAP_API_KEY: key });
    return null;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message;
  }
}

/** docs/decisions/0018-abuse-limits-and-quotas.md: a bootstrap key must look like one a random source made. */
describe('BOOTSTRAP_API_KEY', () => {
  it.each([
    ['all zeros (the example the deploy file used to ship)', `pkt_${'0'.repeat(64)}`],
    ['one repeated character', `pkt_${'f'.repeat(64)}`],
    ['two characters', `pkt_${'ab'.repeat(32)}`],
    ['a repeated word', `pkt_${'deadbeef'.repeat(8)}`],
    ['every hex digit in order, repeated', `pkt_${'0123456789abcdef'.repeat(4)}`],
    ['a short random block, repeated', `pkt_${'9f3a61c07be2d854'.repeat(4)}`],
    ['few distinct digits', `pkt_${'0101010101010101010101010101010101010101010101010101010101012345'}`],
  ])('refuses %s, saying how to generate one', (_name, key) => {
    const problem = bootstrapKeyProblem(key);
    expect(problem).toContain('BOOTSTRAP_API_KEY');
    expect(problem).toContain(GENERATE);
    expect(weakApiKeyProblem(key)).not.toBeNull();
  });

  it.each([
    ['a placeholder', 'replace with the output of: echo pkt_$(openssl rand -hex 32)'],
    ['upper-case hex', `pkt_${'A1B2C3D4E5F6'.repeat(5)}abcd`],
    ['too short', `pkt_${randomBytes(16).toString('hex')}`],
  ])('refuses a malformed key (%s), saying how to generate one', (_name, key) => {
    const problem = bootstrapKeyProblem(key);
    expect(problem).toContain('BOOTSTRAP_API_KEY');
    expect(problem).toContain(GENERATE);
  });

  it('accepts keys from a random source (2000 of them)', () => {
    for (let i = 0; i < 2000; i++) {
      const key = `pkt_${randomBytes(32).toString('hex')}`;
      expect({ key, problem: weakApiKeyProblem(key) }).toEqual({ key, problem: null });
    }
    expect(bootstrapKeyProblem(`pkt_${randomBytes(32).toString('hex')}`)).toBeNull();
  });
});
