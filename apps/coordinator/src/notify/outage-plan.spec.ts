import { describe, expect, it } from '@jest/globals';
import { DEFAULT_NOTIFICATION_RULES, type NotificationRules } from '../monitors/notification-rules.js';
import { nextReminder, planOutage } from './outage-plan.js';

const T = 1_700_000_000; // the outage's start (Unix s)
const rules = (r: Partial<NotificationRules>): NotificationRules => ({ ...DEFAULT_NOTIFICATION_RULES, ...r });
const all = () => true;

describe('planOutage: who hears of an outage, and when', () => {
  it.each([
    [
      'no rules: the contacts at once',
      rules({}),
      ['a', 'b'],
      all,
      [
        ['a', 'main', 0],
        ['b', 'main', 0],
      ],
    ],
    ['a delay: the contacts after it', rules({ delay_seconds: 120 }), ['a'], all, [['a', 'main', 120]]],
    ['no contacts, no steps: nobody', rules({ delay_seconds: 120 }), [], all, []],
    [
      'steps add their contacts at their time, each contact once at its first rule',
      rules({
        delay_seconds: 90,
        escalation: [
          { after_seconds: 60, contacts: ['b', 'a'] },
          { after_seconds: 600, contacts: ['c', 'b'] },
        ],
      }),
      ['a'],
      all,
      [
        ['a', 'main', 90],
        ['b', 'esc1', 60],
        ['c', 'esc2', 600],
      ],
    ],
    [
      'an inactive escalation contact is skipped; a later step may still tell it',
      rules({ escalation: [{ after_seconds: 60, contacts: ['x', 'y'] }] }),
      [],
      (id: string) => id !== 'x',
      [['y', 'esc1', 60]],
    ],
  ])('%s', (_name, r, main, isActive, expected) => {
    expect(planOutage(r, main, isActive, T).map((p) => [p.contactId, p.rule, p.dueAt / 1000 - T])).toEqual(expected);
  });
});

describe('nextReminder: the chain of one contact', () => {
  const P = T * 1000;
  it.each([
    ['no reminders', 'main', 0, P, null],
    ['after the first message: rem1 one interval later', 'main', 300, P + 1000, { rule: 'rem1', dueAt: P + 300_000 }],
    ['after an escalation message', 'esc2', 300, P, { rule: 'rem1', dueAt: P + 300_000 }],
    ['after rem7: rem8', 'rem7', 600, P, { rule: 'rem8', dueAt: P + 600_000 }],
    // A dispatcher back after 17 minutes sends one reminder at the next boundary, not three.
    ['late: the first boundary after now', 'rem1', 300, P + 1_020_000, { rule: 'rem2', dueAt: P + 1_200_000 }],
    ['exactly on a boundary: the next one', 'main', 300, P + 300_000, { rule: 'rem1', dueAt: P + 600_000 }],
  ])('%s', (_name, parent, interval, now, expected) => {
    expect(nextReminder(parent, P, interval, now)).toEqual(expected);
  });
});
