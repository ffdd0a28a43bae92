import { describe, expect, it } from '@jest/globals';
import { probeResult } from '../../../../test/support/check-results.js';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import { Evidence } from './evidence.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaa01';
const B = 'aaaaaaaaaaaaaaaaaaaaaa02';

describe('Evidence', () => {
  it('keeps the latest result per region, in the order the regions first answered, as an incident stores it', () => {
    const { roster } = rosterWith(monitorEntity(A), monitorEntity(B));
    const evidence = new Evidence(roster);
    expect(evidence.of(A)).toEqual({});
    expect(evidence.errorOf(A, 'us-east-1')).toBeNull();

    evidence.record(probeResult(A, 'us-east-1', 'up', 120, 1_800_000_000_900));
    evidence.record(probeResult(A, 'eu-west-1', 'down', null, 1_800_000_001_000));
    evidence.record({ ...probeResult(A, 'us-east-1', 'down', null, 1_800_000_002_500), checker_ip: null });
    evidence.record(probeResult(B, 'eu-west-1', 'up', 80, 1_800_000_003_000));

    const of = evidence.of(A);
    expect(Object.keys(of)).toEqual(['us-east-1', 'eu-west-1']);
    expect(of).toEqual({
      'us-east-1': {
        status: 'down',
        response_time_ms: null,
        error: 'HTTP 503',
        checked_at: 1_800_000_002,
        checker_ip: null,
      },
      'eu-west-1': {
        status: 'down',
        response_time_ms: null,
        error: 'HTTP 503',
        checked_at: 1_800_000_001,
        checker_ip: '192.0.2.10',
      },
    });
    expect(evidence.errorOf(A, 'eu-west-1')).toBe('HTTP 503');
    expect(evidence.errorOf(B, 'eu-west-1')).toBeNull();
    expect(evidence.errorOf(B, 'us-east-1')).toBeNull();
    // What `of` hands out is the caller's: changing it changes nothing kept.
    (of['eu-west-1'] as { error: string | null }).error = 'changed';
    expect(evidence.errorOf(A, 'eu-west-1')).toBe('HTTP 503');
  });

  it('keeps a region the monitor did not list when its block was made (its regions changed)', () => {
    const { roster } = rosterWith(monitorEntity(A, { regions: ['us-east-1'] }));
    const evidence = new Evidence(roster);
    evidence.record(probeResult(A, 'us-east-1', 'up', 100, 1_800_000_000_000));
    evidence.record(probeResult(A, 'eu-west-1', 'down', null, 1_800_000_001_000));
    evidence.record(probeResult(A, 'ap-southeast-1', 'up', 0, 1_800_000_002_000));
    expect(Object.keys(evidence.of(A))).toEqual(['us-east-1', 'eu-west-1', 'ap-southeast-1']);
    expect(evidence.of(A)['ap-southeast-1']).toMatchObject({
      status: 'up',
      response_time_ms: 0,
      checked_at: 1_800_000_002,
    });
    expect(evidence.errorOf(A, 'eu-west-1')).toBe('HTTP 503');
  });

  it('keeps each of many monitors apart, and a forgotten monitor leaves nothing to the next', () => {
    const ids = Array.from({ length: 2_500 }, (_, i) => `aaaaaaaaaaaaaaaaaa${i.toString(16).padStart(6, '0')}`);
    const { roster } = rosterWith(...ids.map((id) => monitorEntity(id)));
    const evidence = new Evidence(roster);
    ids.forEach((id, i) => evidence.record(probeResult(id, 'us-east-1', i % 2 ? 'down' : 'up', i % 2 ? null : i)));
    ids.forEach((id, i) => {
      expect(evidence.of(id)).toEqual({
        'us-east-1': expect.objectContaining({ status: i % 2 ? 'down' : 'up', response_time_ms: i % 2 ? null : i }),
      });
    });
    roster.apply({ kind: 'deleted', monitorId: ids[0]! });
    roster.apply({ kind: 'saved', monitor: monitorEntity(A) });
    evidence.record(probeResult(A, 'eu-west-1', 'up', 5));
    expect(Object.keys(evidence.of(A))).toEqual(['eu-west-1']);
    expect(evidence.of(ids[0]!)).toEqual({});
    expect(evidence.of(ids[1]!)).toEqual({ 'us-east-1': expect.objectContaining({ status: 'down' }) });
  });

  it('forgets a monitor that leaves the roster', () => {
    const { roster } = rosterWith(monitorEntity(A));
    const evidence = new Evidence(roster);
    evidence.record(probeResult(A, 'us-east-1', 'down', null));
    roster.apply({ kind: 'deleted', monitorId: A });
    expect(evidence.of(A)).toEqual({});
  });
});
