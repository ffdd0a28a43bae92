import { arrayOf, described, integer, isPlainObject, objectIdString, record, type Checker } from '#validation';

/**
 * A monitor's notification rules (docs/decisions/0029-notification-rules.md), as
 * the API shows them and as stored (the `notification_rules` JSON column; null = the defaults).
 */
export interface NotificationRules {
  /** Notify only if still down this long after the outage started (0..3600 s). */
  delay_seconds: number;
  /** Reminders while down, every this many seconds after each contact's first message; 0 = none. */
  repeat_interval_seconds: number;
  /** Who else hears of the outage once it lasts `after_seconds` (strictly increasing, ≤ 5 steps). */
  escalation: EscalationStep[];
}

export interface EscalationStep {
  after_seconds: number;
  contacts: string[];
}

export const NOTIFICATION_RULE_LIMITS = {
  delay: { min: 0, max: 3600 },
  repeat: { min: 300, max: 86_400 },
  after: { min: 60, max: 86_400 },
  steps: 5,
  contacts: 100,
} as const;

export const DEFAULT_NOTIFICATION_RULES: NotificationRules = Object.freeze({
  delay_seconds: 0,
  repeat_interval_seconds: 0,
  escalation: [],
});

const { delay, repeat, after, steps, contacts } = NOTIFICATION_RULE_LIMITS;

/** 0 (no reminders) or 300..86400. */
const repeatInterval: Checker = described(
  (value) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
    if (value !== 0 && (value < repeat.min || value > repeat.max)) {
      return `must be 0 (no reminders) or between ${repeat.min} and ${repeat.max}`;
    }
    return null;
  },
  {
    type: 'integer',
    anyOf: [{ const: 0 }, { minimum: repeat.min, maximum: repeat.max }],
  },
);

const step = record({
  after_seconds: integer(after.min, after.max),
  contacts: arrayOf(objectIdString, { max: contacts, unique: true }),
});

const shape = record(
  {
    delay_seconds: integer(delay.min, delay.max),
    repeat_interval_seconds: repeatInterval,
    escalation: arrayOf(step, { max: steps }),
  },
  ['delay_seconds', 'repeat_interval_seconds', 'escalation'],
);

/** The API field: the shape above, and the steps' after_seconds strictly increasing. */
export const notificationRules: Checker = described((value) => {
  const problem = shape(value);
  if (problem) return problem;
  const escalation =
    isPlainObject(value) && Array.isArray(value.escalation) ? (value.escalation as EscalationStep[]) : [];
  for (let i = 1; i < escalation.length; i++) {
    if (escalation[i]!.after_seconds <= escalation[i - 1]!.after_seconds) {
      return `escalation item ${i}: after_seconds must be greater than the previous step's (${escalation[i - 1]!.after_seconds})`;
    }
  }
  return null;
}, shape.schema ?? {});

/** The rules a request gave (validated), with the defaults filled in: what is stored. */
export function rulesWithDefaults(given: Partial<NotificationRules> | null | undefined): NotificationRules {
  return {
    delay_seconds: given?.delay_seconds ?? DEFAULT_NOTIFICATION_RULES.delay_seconds,
    repeat_interval_seconds: given?.repeat_interval_seconds ?? DEFAULT_NOTIFICATION_RULES.repeat_interval_seconds,
    escalation: (given?.escalation ?? []).map((s) => ({ after_seconds: s.after_seconds, contacts: [...s.contacts] })),
  };
}

/** Every contact id the escalation steps name, with the API path of each. */
export function escalationContactPaths(rules: NotificationRules): { id: string; field: string }[] {
  return rules.escalation.flatMap((s, i) =>
    s.contacts.map((id, j) => ({ id, field: `notification_rules.escalation[${i}].contacts[${j}]` })),
  );
}
