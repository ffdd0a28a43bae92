import { describe, expect, it } from '@jest/globals';
import { configVariables, loadEnv } from './env.js';
import { NatsEnv } from './nats-env.js';

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
