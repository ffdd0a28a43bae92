import type { NotificationRules } from '../monitors/notification-rules.js';

/** The rule of the monitor's own contact list: the outage's first message to them (and every unplanned row). */
export const MAIN_RULE = 'main';

/** One planned `monitor.down` of an outage: to whom, which rule of the plan, and when (ms). */
export interface PlannedMessage {
  contactId: string;
  rule: string;
  dueAt: number;
}

/**
 * Who hears of an outage that started at `startedAt` (Unix s), and when
 * (docs/decisions/0029-notification-rules.md): the monitor's active contacts (`main`, in their
 * order) once the delay has passed, then each escalation step's active contacts not told by the
 * list or an earlier step (`esc1`..`esc5`) once the outage has lasted `after_seconds`. A contact
 * is planned once, at its first rule; `isActive` says whether an escalation contact may be told.
 */
export function planOutage(
  rules: NotificationRules,
  mainContacts: readonly string[],
  isActive: (contactId: string) => boolean,
  startedAt: number,
): PlannedMessage[] {
  const planned: PlannedMessage[] = [];
  const told = new Set<string>();
  const add = (contactId: string, rule: string, afterSeconds: number) => {
    if (told.has(contactId)) return;
    told.add(contactId);
    planned.push({ contactId, rule, dueAt: (startedAt + afterSeconds) * 1000 });
  };
  for (const id of mainContacts) add(id, MAIN_RULE, rules.delay_seconds);
  rules.escalation.forEach((step, i) => {
    for (const id of step.contacts) if (isActive(id)) add(id, `esc${i + 1}`, step.after_seconds);
  });
  return planned;
}

/**
 * The reminder that follows a contact's `monitor.down` (rule `main` or `escN`) or reminder
 * (`remN`) planned at `parentDueAt` (ms): `rem<N+1>`, one interval later, or — when the
 * dispatcher comes late (a coordinator was down) — the first interval boundary after `now`, so
 * a long pause sends one reminder, not a burst. Null without reminders (interval 0). The rule
 * depends only on the parent, so a replayed chain names the same row (the unique index keeps one).
 */
export function nextReminder(
  parentRule: string,
  parentDueAt: number,
  intervalSeconds: number,
  now: number,
): { rule: string; dueAt: number } | null {
  if (intervalSeconds <= 0) return null;
  const step = intervalSeconds * 1000;
  const n = /^rem(\d+)$/.exec(parentRule);
  const rule = `rem${n ? Number(n[1]) + 1 : 1}`;
  const intervals = Math.max(1, Math.floor((now - parentDueAt) / step) + 1);
  return { rule, dueAt: parentDueAt + intervals * step };
}
