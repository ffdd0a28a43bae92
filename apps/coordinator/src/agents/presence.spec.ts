import { describe, expect, it } from '@jest/globals';
import { AGENT_PERSIST_MS, AGENT_PRESENT_MS, isPresent } from './presence.js';

describe('isPresent', () => {
  it.each([
    ['heartbeat', 0, true],
    ['heartbeat', AGENT_PRESENT_MS, true],
    ['heartbeat', AGENT_PRESENT_MS + 1, false],
    ['row', AGENT_PRESENT_MS + 1, true],
    ['row', AGENT_PRESENT_MS + AGENT_PERSIST_MS, true],
    ['row', AGENT_PRESENT_MS + AGENT_PERSIST_MS + 1, false],
  ] as const)('from a %s %i ms old: %s', (source, age, present) => {
    expect(isPresent(1_000_000 - age, 1_000_000, source)).toBe(present);
  });
});
