import { describe, expect, it } from '@jest/globals';
import { afterDelivery, DEACTIVATE_AFTER, type ContactHealth, type DeliveryEnd } from './contact-health.js';

const healthy: ContactHealth = { active: true, consecutiveFailures: 0, error: null };
const failed = (detail = 'HTTP 410') => ({
  kind: 'failed' as const,
  class: 'disable' as const,
  detail,
  at: 1_767_261_600_000,
});

describe('afterDelivery', () => {
  it(`deactivates on the ${DEACTIVATE_AFTER}th consecutive failed delivery, with the error object`, () => {
    let health: ContactHealth = healthy;
    for (let i = 1; i < DEACTIVATE_AFTER; i++) {
      const next = afterDelivery(health, failed());
      expect(next).toMatchObject({ active: true, consecutiveFailures: i, deactivated: false });
      health = next;
    }
    const last = afterDelivery(health, failed());
    expect(last).toEqual({
      active: false,
      consecutiveFailures: DEACTIVATE_AFTER,
      error: { code: 'DESTINATION_REJECTED', message: 'HTTP 410', failed_at: 1_767_261_600, consecutive_failures: 5 },
      deactivated: true,
    });
  });

  it('a success in between resets the count and clears the error', () => {
    const four = { active: true, consecutiveFailures: 4, error: failedError() };
    expect(afterDelivery(four, { kind: 'delivered' })).toEqual({
      active: true,
      consecutiveFailures: 0,
      error: null,
      deactivated: false,
    });
  });

  it("Picket's own configuration problems set error but never count or deactivate", () => {
    const four = { active: true, consecutiveFailures: 4, error: null };
    const next = afterDelivery(four, { kind: 'config', detail: 'no SMTP relay configured', at: 1_000 });
    expect(next).toMatchObject({ active: true, consecutiveFailures: 4, deactivated: false });
    expect(next.error).toMatchObject({ code: 'SERVER_CONFIGURATION', message: 'no SMTP relay configured' });
  });

  it('names the failure by class', () => {
    expect(afterDelivery(healthy, { ...failed(), class: 'retry' }).error?.code).toBe('DELIVERY_EXPIRED');
    expect(afterDelivery(healthy, { ...failed(), class: 'bug' }).error?.code).toBe('DELIVERY_REJECTED');
  });
});

describe('afterDelivery: error from the first failure', () => {
  const AT = 1_767_261_600_000;
  const S = 1_767_261_600;
  const retrying: DeliveryEnd = { kind: 'retrying', detail: 'attempt 1 failed, retrying: HTTP 503', at: AT };
  const old = { code: 'DESTINATION_REJECTED', message: 'HTTP 410', failed_at: 1, consecutive_failures: 3 };
  const retryError = (failures: number) => ({
    code: 'DELIVERY_RETRYING',
    message: 'attempt 1 failed, retrying: HTTP 503',
    failed_at: S,
    consecutive_failures: failures,
  });

  it.each<[string, ContactHealth, DeliveryEnd, ContactHealth & { deactivated: boolean }]>([
    [
      'the first failed delivery sets error at once',
      healthy,
      failed(),
      {
        active: true,
        consecutiveFailures: 1,
        error: { code: 'DESTINATION_REJECTED', message: 'HTTP 410', failed_at: S, consecutive_failures: 1 },
        deactivated: false,
      },
    ],
    [
      'a retryable failure sets error while retries continue, without counting',
      healthy,
      retrying,
      { active: true, consecutiveFailures: 0, error: retryError(0), deactivated: false },
    ],
    [
      'a retryable failure replaces an older error and keeps the count',
      { active: true, consecutiveFailures: 3, error: old },
      retrying,
      { active: true, consecutiveFailures: 3, error: retryError(3), deactivated: false },
    ],
    [
      'a retryable failure never deactivates, even after four failed deliveries',
      { active: true, consecutiveFailures: 4, error: old },
      retrying,
      { active: true, consecutiveFailures: 4, error: retryError(4), deactivated: false },
    ],
    [
      'success after retries clears the error',
      { active: true, consecutiveFailures: 0, error: retryError(0) },
      { kind: 'delivered' },
      { active: true, consecutiveFailures: 0, error: null, deactivated: false },
    ],
  ])('%s', (_name, before, end, after) => {
    expect(afterDelivery(before, end)).toEqual(after);
  });
});

function failedError() {
  return { code: 'DESTINATION_REJECTED', message: 'HTTP 410', failed_at: 1, consecutive_failures: 4 };
}
