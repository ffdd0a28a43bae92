import { describe, expect, it } from '@jest/globals';
import { fieldErrors } from './field-errors.ts';
import { nextStep, rulesBody, rulesDraftOf, rulesFields, rulesSummary } from './rules-draft.ts';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';

describe('the notification rules of the monitor form', () => {
  it('round-trips the API rules through the draft, numbers as numbers', () => {
    const rules = {
      delay_seconds: 120,
      repeat_interval_seconds: 900,
      escalation: [{ after_seconds: 600, contacts: [A] }],
    };
    expect(rulesBody(rulesDraftOf(rules))).toEqual(rules);
    expect(rulesBody(rulesDraftOf(undefined))).toEqual({
      delay_seconds: 0,
      repeat_interval_seconds: 0,
      escalation: [],
    });
  });

  it('sends what is not a number as typed, for the API to name', () => {
    expect(rulesBody({ delay: '', repeat: 'x', steps: [{ after: '1e', contacts: [] }] })).toEqual({
      delay_seconds: '',
      repeat_interval_seconds: 'x',
      escalation: [{ after_seconds: '1e', contacts: [] }],
    });
  });

  it('adds a step an hour after the last (15 minutes first), never past a day', () => {
    expect(nextStep(rulesDraftOf(undefined)).after).toBe('900');
    expect(nextStep({ delay: '0', repeat: '0', steps: [{ after: '900', contacts: [] }] }).after).toBe('4500');
    expect(nextStep({ delay: '0', repeat: '0', steps: [{ after: '86000', contacts: [] }] }).after).toBe('86400');
  });

  it("places the API's errors: a step's contact on its step, the rest on the rules", () => {
    const draft = {
      delay: '0',
      repeat: '0',
      steps: [
        { after: '60', contacts: [A] },
        { after: '120', contacts: [] },
      ],
    };
    const { byField, unplaced } = fieldErrors(
      [
        { field: 'notification_rules.escalation[1].contacts[0]', message: 'is not a contact of this account' },
        { field: 'notification_rules', message: 'delay_seconds must be between 0 and 3600' },
      ],
      rulesFields(draft),
    );
    expect(byField).toEqual({
      'notification_rules.escalation[1]': 'is not a contact of this account',
      notification_rules: 'delay_seconds must be between 0 and 3600',
    });
    expect(unplaced).toEqual([]);
  });

  it('sums the rules up in one line', () => {
    expect(rulesSummary(undefined)).toBe('at once');
    expect(rulesSummary({ delay_seconds: 0, repeat_interval_seconds: 0, escalation: [] })).toBe('at once');
    expect(
      rulesSummary({
        delay_seconds: 120,
        repeat_interval_seconds: 1800,
        escalation: [
          { after_seconds: 900, contacts: [A] },
          { after_seconds: 3600, contacts: [] },
        ],
      }),
    ).toBe('after 2 min down; reminders every 30 min; escalation at 15 min (1 contact), 1 h (0 contacts)');
  });
});
