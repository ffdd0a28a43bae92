import { describe, expect, it } from '@jest/globals';
import { privateHeartbeatSource, probeSubjectOf, subjectsFor } from './subjects.js';

const ACCOUNT = '65a1b2c3d4e5f60718293a4b';

describe('private region subjects (docs/decisions/0030-private-regions.md)', () => {
  const subjects = subjectsFor('picket');

  it.each([
    [{ region: 'eu-west-1' }, 'picket.probe.eu-west-1'],
    // A public region stays public even with an account id beside it.
    [{ region: 'eu-west-1', account_id: ACCOUNT }, 'picket.probe.eu-west-1'],
    [{ region: 'office', account_id: ACCOUNT }, `picket.private.${ACCOUNT}.office.probe`],
    // A private region without its account goes nowhere.
    [{ region: 'office' }, null],
  ])('probe subject of %j: %s', (request, subject) => {
    expect(probeSubjectOf(subjects, request)).toBe(subject);
  });

  it.each([
    [`picket.private.${ACCOUNT}.office.heartbeat`, { accountId: ACCOUNT, region: 'office' }],
    [`picket.private.${ACCOUNT}.eu-west-1.heartbeat`, null], // a public id is no private region
    [`picket.private.${ACCOUNT}.office.probe`, null],
    [`picket.private.nothex.office.heartbeat`, null],
    [`picket.private.${ACCOUNT}.a.b.heartbeat`, null],
    [`other.private.${ACCOUNT}.office.heartbeat`, null],
    ['picket.agents.heartbeat', null],
  ])('heartbeat source of %s', (subject, source) => {
    expect(privateHeartbeatSource('picket', subject)).toEqual(source);
  });

  it('the coordinators’ wildcard matches exactly the private heartbeat subjects', () => {
    expect(subjects.privateHeartbeats).toBe('picket.private.*.*.heartbeat');
    expect(subjects.privateHeartbeat(ACCOUNT, 'office').split('.')).toHaveLength(5);
  });
});
