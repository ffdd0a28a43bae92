import { describe } from '@jest/globals';

/** The NATS server for tests, when global setup found one (CI requires it). */
export function testNatsUrl(): string | null {
  return process.env.PICKET_TEST_NATS === '1' ? (process.env.PICKET_TEST_NATS_URL ?? null) : null;
}

/**
 * `describe` for suites that need NATS. Without a server they are reported as skipped, and
 * global setup says why and how to enable them; with PICKET_TEST_REQUIRE_SERVICES=1 (CI) a
 * missing server fails the run before any suite starts.
 */
export const describeWithNats = testNatsUrl() === null ? describe.skip : describe;
