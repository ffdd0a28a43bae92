import type { ContactError } from './contact.entity.js';

/** After this many consecutive failed deliveries a contact is deactivated (docs/decisions/0006-contacts.md). */
export const DEACTIVATE_AFTER = 5;

export interface ContactHealth {
  active: boolean;
  consecutiveFailures: number;
  error: ContactError | null;
}

/** How a delivery failed for good, in the dispatcher's classes (notify/notifier.ts). */
export type DeliveryFailure = 'retry' | 'disable' | 'bug';

/** How a delivery ended for the contact's bookkeeping. */
export type DeliveryEnd =
  | { kind: 'delivered' }
  /** Failed for good: permanent answer, rejected body, or out of retry time. */
  | { kind: 'failed'; class: DeliveryFailure; detail: string; at: number }
  /** Picket's own configuration stands in the way (no SMTP relay, VAPID mismatch). */
  | { kind: 'config'; detail: string; at: number }
  /** A transient failure: the delivery is not over, another attempt is scheduled. */
  | { kind: 'retrying'; detail: string; at: number };

const ERROR_CODES: Record<DeliveryFailure, string> = {
  disable: 'DESTINATION_REJECTED',
  bug: 'DELIVERY_REJECTED',
  retry: 'DELIVERY_EXPIRED',
};

/**
 * The contact after a delivery attempt (docs/decisions/0006-contacts.md): success clears the
 * count and `error`; a delivery that failed for good counts and sets `error` (from the first
 * one on), and the fifth in a row deactivates the contact; a transient failure while retries
 * continue sets `error` (`DELIVERY_RETRYING`, the latest attempt's reason) but neither counts
 * nor deactivates; configuration problems set `error` but neither count nor deactivate.
 */
export function afterDelivery(health: ContactHealth, end: DeliveryEnd): ContactHealth & { deactivated: boolean } {
  switch (end.kind) {
    case 'delivered':
      return { active: health.active, consecutiveFailures: 0, error: null, deactivated: false };
    case 'retrying':
      return {
        ...health,
        error: {
          code: 'DELIVERY_RETRYING',
          message: end.detail,
          failed_at: Math.floor(end.at / 1000),
          consecutive_failures: health.consecutiveFailures,
        },
        deactivated: false,
      };
    case 'config':
      return {
        ...health,
        error: {
          code: 'SERVER_CONFIGURATION',
          message: end.detail,
          failed_at: Math.floor(end.at / 1000),
          consecutive_failures: health.consecutiveFailures,
        },
        deactivated: false,
      };
    case 'failed': {
      const failures = health.consecutiveFailures + 1;
      const deactivate = health.active && failures >= DEACTIVATE_AFTER;
      return {
        active: health.active && !deactivate,
        consecutiveFailures: failures,
        error: {
          code: ERROR_CODES[end.class],
          message: end.detail,
          failed_at: Math.floor(end.at / 1000),
          consecutive_failures: failures,
        },
        deactivated: deactivate,
      };
    }
  }
}
