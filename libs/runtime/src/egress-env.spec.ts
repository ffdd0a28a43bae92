import { describe, expect, it } from '@jest/globals';
import { EgressEnv } from './egress-env.js';
import { egressProblem } from './egress.js';
import { ConfigError, configVariables, loadEnv } from './env.js';

describe('EgressEnv: the egress variables of both apps', () => {
  it('defaults to private-allowed without exceptions', () => {
    const env = loadEnv(EgressEnv, {});
    expect(env.egress()).toEqual({ policy: 'private-allowed', allow: [], deny: [], allowMetadata: false });
    expect(configVariables(EgressEnv)).toEqual([
      'EGRESS_ALLOW_CIDRS',
      'EGRESS_ALLOW_METADATA',
      'EGRESS_DENY_CIDRS',
      'EGRESS_POLICY',
    ]);
  });

  it('reads the lists and the metadata switch into the rules every connection is judged by', () => {
    const env = loadEnv(EgressEnv, {
      EGRESS_POLICY: 'strict',
      EGRESS_ALLOW_CIDRS: ' 10.20.0.0/16 , 2001:db8:1::/48',
      EGRESS_DENY_CIDRS: '10.20.30.40',
      EGRESS_ALLOW_METADATA: 'true',
    });
    const rules = env.egress();
    expect(rules).toEqual({
      policy: 'strict',
      allow: ['10.20.0.0/16', '2001:db8:1::/48'],
      deny: ['10.20.30.40'],
      allowMetadata: true,
    });
    expect(env.egress()).toBe(rules);
    expect(egressProblem('10.20.1.1', rules)).toBeNull();
    expect(egressProblem('10.20.30.40', rules)).toMatch(/denied/);
    expect(egressProblem('10.21.0.1', rules)).toMatch(/not a public address/);
  });

  it('names each bad variable', () => {
    let error: unknown;
    try {
      loadEnv(EgressEnv, {
        EGRESS_POLICY: 'lenient',
        EGRESS_ALLOW_CIDRS: '10.0.0.0/8,example.com',
        EGRESS_DENY_CIDRS: '10.0.0.0/33',
        EGRESS_ALLOW_METADATA: 'yes',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.split(' ')[0]).sort()).toEqual([
      'EGRESS_ALLOW_CIDRS',
      'EGRESS_ALLOW_METADATA',
      'EGRESS_DENY_CIDRS',
      'EGRESS_POLICY',
    ]);
  });
});
