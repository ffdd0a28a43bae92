import { describe, expect, it } from '@jest/globals';
import { checkInput } from '#validation';
import { CreateMonitorDto } from './monitor.dto.js';
import { notificationRules, rulesWithDefaults } from './notification-rules.js';

const ID = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const ID2 = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const step = (after_seconds: unknown, contacts: unknown = [ID]) => ({ after_seconds, contacts });

describe('notification_rules validation', () => {
  it.each([
    [{}],
    [{ delay_seconds: 0, repeat_interval_seconds: 0, escalation: [] }],
    [{ delay_seconds: 3600, repeat_interval_seconds: 300 }],
    [{ repeat_interval_seconds: 86_400 }],
    [{ escalation: [step(60), step(61, [ID, ID2]), step(120, []), step(3600), step(86_400)] }],
  ])('accepts %j', (value) => {
    expect(notificationRules(value)).toBeNull();
  });

  it.each([
    [null, /object/],
    [[], /object/],
    [{ delay_seconds: -1 }, /delay_seconds must be between 0 and 3600/],
    [{ delay_seconds: 3601 }, /delay_seconds/],
    [{ delay_seconds: 1.5 }, /delay_seconds must be an integer/],
    [{ delay_seconds: '10' }, /delay_seconds must be an integer/],
    [{ repeat_interval_seconds: 299 }, /repeat_interval_seconds must be 0 \(no reminders\) or between 300 and 86400/],
    [{ repeat_interval_seconds: 1 }, /repeat_interval_seconds/],
    [{ repeat_interval_seconds: 86_401 }, /repeat_interval_seconds/],
    [{ escalation: [step(59)] }, /escalation item 0: after_seconds must be between 60 and 86400/],
    [{ escalation: [step(86_401)] }, /after_seconds/],
    [
      { escalation: [step(120), step(120)] },
      /escalation item 1: after_seconds must be greater than the previous step's \(120\)/,
    ],
    [{ escalation: [step(300), step(120)] }, /greater than the previous/],
    [{ escalation: [60, 120, 180, 240, 300, 360].map((s) => step(s)) }, /at most 5 items/],
    [{ escalation: [step(60, ['nope'])] }, /contacts item 0: must be a 24-character/],
    [{ escalation: [step(60, [ID, ID])] }, /duplicates/],
    [{ escalation: [{ after_seconds: 60 }] }, /needs the field "contacts"/],
    [{ escalation: [{ ...step(60), extra: 1 }] }, /unknown field "extra"/],
    [{ delay: 5 }, /unknown field "delay"/],
  ])('refuses %j', (value, message) => {
    expect(notificationRules(value)).toMatch(message);
  });

  it('names the field in a create body', () => {
    const { problems } = checkInput(CreateMonitorDto, {
      name: 'x',
      settings: { https: { url: 'https://example.com' } },
      regions: ['us-east-1'],
      notification_rules: { repeat_interval_seconds: 5 },
    });
    expect(problems).toEqual([
      { field: 'notification_rules', message: expect.stringMatching(/repeat_interval_seconds/) },
    ]);
  });

  it('fills in the defaults for what was left out', () => {
    expect(rulesWithDefaults(null)).toEqual({ delay_seconds: 0, repeat_interval_seconds: 0, escalation: [] });
    expect(rulesWithDefaults({ delay_seconds: 30 })).toEqual({
      delay_seconds: 30,
      repeat_interval_seconds: 0,
      escalation: [],
    });
  });
});
