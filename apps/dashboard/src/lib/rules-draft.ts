import { duration } from './time.ts';

/** A monitor's `notification_rules` as the API returns them (docs/decisions/0029-notification-rules.md). */
export interface NotificationRules {
  delay_seconds: number;
  repeat_interval_seconds: number;
  escalation: { after_seconds: number; contacts: string[] }[];
}

/** At most this many escalation steps. */
export const MAX_STEPS = 5;

/** The rules as the form edits them: numbers as typed. */
export interface RulesDraft {
  delay: string;
  repeat: string;
  steps: { after: string; contacts: string[] }[];
}

export function rulesDraftOf(rules: NotificationRules | undefined): RulesDraft {
  return {
    delay: String(rules?.delay_seconds ?? 0),
    repeat: String(rules?.repeat_interval_seconds ?? 0),
    steps: (rules?.escalation ?? []).map((s) => ({ after: String(s.after_seconds), contacts: [...s.contacts] })),
  };
}

/** The API's `notification_rules`: numbers as numbers (anything else sent as is, for the API to name). */
export function rulesBody(draft: RulesDraft): Record<string, unknown> {
  const number = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);
  return {
    delay_seconds: number(draft.delay),
    repeat_interval_seconds: number(draft.repeat),
    escalation: draft.steps.map((s) => ({ after_seconds: number(s.after), contacts: s.contacts })),
  };
}

/** A new step: an hour after the last one (or 15 minutes), within the API's 86400. */
export function nextStep(draft: RulesDraft): { after: string; contacts: string[] } {
  const last = Number(draft.steps.at(-1)?.after ?? 0);
  const after = Number.isFinite(last) && last > 0 ? Math.min(86_400, last + 3600) : 900;
  return { after: String(after), contacts: [] };
}

/** The form fields that show an error of the rules (a step's contacts show on their step). */
export function rulesFields(draft: RulesDraft): string[] {
  return ['notification_rules', ...draft.steps.map((_, i) => `notification_rules.escalation[${i}]`)];
}

/** One line a person reads: "after 2 min down; reminders every 30 min; escalation at 15 min (1 contact)". */
export function rulesSummary(rules: NotificationRules | undefined): string {
  if (!rules) return 'at once';
  const parts = [rules.delay_seconds > 0 ? `after ${duration(rules.delay_seconds)} down` : 'at once'];
  if (rules.repeat_interval_seconds > 0) parts.push(`reminders every ${duration(rules.repeat_interval_seconds)}`);
  if (rules.escalation.length > 0) {
    parts.push(
      `escalation at ${rules.escalation
        .map(
          (s) =>
            `${duration(s.after_seconds)} (${s.contacts.length} ${s.contacts.length === 1 ? 'contact' : 'contacts'})`,
        )
        .join(', ')}`,
    );
  }
  return parts.join('; ');
}
