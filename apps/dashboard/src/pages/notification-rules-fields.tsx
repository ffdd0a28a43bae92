import { Field } from '../components/common.tsx';
import { MAX_STEPS, nextStep, type RulesDraft } from '../lib/rules-draft.ts';

interface Contact {
  id: string;
  name: string;
  channel: string;
}

/**
 * The monitor form's notification rules: the delay, the reminder interval and up to five
 * escalation steps with their contacts (docs/decisions/0029-notification-rules.md). `errors`
 * holds the API's messages by field (`notification_rules`, `notification_rules.escalation[i]`).
 */
export function NotificationRulesFields({
  rules,
  onChange,
  contacts,
  errors,
}: {
  rules: RulesDraft;
  onChange: (rules: RulesDraft) => void;
  contacts: Contact[];
  errors: Record<string, string>;
}) {
  const general = errors['notification_rules'];
  const setStep = (i: number, step: RulesDraft['steps'][number]) =>
    onChange({ ...rules, steps: rules.steps.map((s, j) => (j === i ? step : s)) });
  return (
    <fieldset className={general ? 'has-error' : ''} aria-describedby={general ? 'rules-error' : undefined}>
      <legend>Notification rules</legend>
      <div className="row3">
        <Field label="Wait before alerting (seconds)" hint="0 to 3600; a shorter outage notifies nobody">
          {(p) => (
            <input
              {...p}
              aria-invalid={Boolean(general && /delay_seconds/.test(general))}
              type="number"
              min={0}
              max={3600}
              value={rules.delay}
              onChange={(e) => onChange({ ...rules, delay: e.target.value })}
            />
          )}
        </Field>
        <Field label="Remind every (seconds)" hint="0 for no reminders, or 300 to 86400">
          {(p) => (
            <input
              {...p}
              aria-invalid={Boolean(general && /repeat_interval_seconds/.test(general))}
              type="number"
              min={0}
              max={86400}
              value={rules.repeat}
              onChange={(e) => onChange({ ...rules, repeat: e.target.value })}
            />
          )}
        </Field>
      </div>
      {general && (
        <p className="error" id="rules-error" role="alert">
          {general}
        </p>
      )}
      <ol className="steps">
        {rules.steps.map((step, i) => {
          const error = errors[`notification_rules.escalation[${i}]`];
          return (
            <li key={i} className={`step${error ? ' has-error' : ''}`}>
              <fieldset aria-describedby={error ? `step-${i}-error` : undefined}>
                <legend>Escalation step {i + 1}</legend>
                <div className="row3">
                  <Field label="After (seconds down)" hint="60 to 86400, later than the step before">
                    {(p) => (
                      <input
                        {...p}
                        type="number"
                        min={60}
                        max={86400}
                        value={step.after}
                        onChange={(e) => setStep(i, { ...step, after: e.target.value })}
                      />
                    )}
                  </Field>
                </div>
                <div className="choices grid" role="group" aria-label={`Contacts of escalation step ${i + 1}`}>
                  {contacts.map((c) => (
                    <label key={c.id} className="choice">
                      <input
                        type="checkbox"
                        checked={step.contacts.includes(c.id)}
                        onChange={(e) =>
                          setStep(i, {
                            ...step,
                            contacts: e.target.checked
                              ? [...step.contacts, c.id]
                              : step.contacts.filter((x) => x !== c.id),
                          })
                        }
                      />
                      {c.name} <span className="muted">({c.channel})</span>
                    </label>
                  ))}
                </div>
                {error && (
                  <p className="error" id={`step-${i}-error`} role="alert">
                    {error}
                  </p>
                )}
                <button
                  type="button"
                  onClick={() => onChange({ ...rules, steps: rules.steps.filter((_, j) => j !== i) })}
                >
                  Remove step {i + 1}
                </button>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        disabled={rules.steps.length >= MAX_STEPS}
        onClick={() => onChange({ ...rules, steps: [...rules.steps, nextStep(rules)] })}
      >
        Add escalation step
      </button>
    </fieldset>
  );
}
