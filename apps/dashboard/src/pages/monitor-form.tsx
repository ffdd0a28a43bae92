import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNote, Field, Loading } from '../components/common.tsx';
import { ApiError, api } from '../lib/api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import {
  bodyOf,
  draftOf,
  emptyDraft,
  isProbed,
  SETTINGS_FIELDS,
  shownFields,
  type MonitorDraft,
  type SettingField,
  type SettingValue,
} from '../lib/monitor-draft.ts';
import { MONITOR_TYPES, TYPE_LABELS, type Monitor } from '../lib/monitors.ts';
import { Link, navigate } from '../lib/router.tsx';
import { regionChoices, useRegions } from '../lib/regions.ts';
import { useCan } from '../lib/session.ts';
import { ReadOnlyNote } from '../components/common.tsx';
import { rulesBody, rulesDraftOf, rulesFields, type RulesDraft } from '../lib/rules-draft.ts';
import { NotificationRulesFields } from './notification-rules-fields.tsx';

/** One settings field of the type table, as its kind's control. */
function SettingInput({
  field,
  value,
  error,
  onChange,
}: {
  field: SettingField;
  value: SettingValue;
  error: string | undefined;
  onChange: (value: SettingValue) => void;
}) {
  if (field.kind === 'checkbox')
    return (
      <label className="choice">
        <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        {field.label}
        {error && (
          <span className="error" role="alert">
            {' '}
            {error}
          </span>
        )}
      </label>
    );
  const text = typeof value === 'string' ? value : '';
  return (
    <Field label={field.label} error={error} hint={field.hint}>
      {(p) => {
        switch (field.kind) {
          case 'select':
            return (
              <select {...p} value={text} onChange={(e) => onChange(e.target.value)}>
                {(field.options ?? []).map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            );
          case 'textarea':
          case 'lines':
          case 'json':
            return (
              <textarea
                {...p}
                className={field.kind === 'json' ? 'code' : undefined}
                rows={3}
                placeholder={field.placeholder}
                value={text}
                onChange={(e) => onChange(e.target.value)}
              />
            );
          default:
            return (
              <input
                {...p}
                type={field.kind === 'number' ? 'number' : 'text'}
                inputMode={field.key === 'url' ? 'url' : undefined}
                required={field.key === 'url' || field.kind === 'number'}
                placeholder={field.placeholder}
                value={text}
                onChange={(e) => onChange(e.target.value)}
              />
            );
        }
      }}
    </Field>
  );
}

interface Contact {
  id: string;
  name: string;
  channel: string;
}

/** Create (no id) or edit a monitor; the API's 422 details show beside their fields. */
export function MonitorForm({ id }: { id?: string }) {
  if (!useCan('monitors:write'))
    return (
      <ReadOnlyNote
        what="monitors"
        back={<Link href={id === undefined ? '/monitors' : `/monitors/${id}`}>Back</Link>}
      />
    );
  return <EditableMonitorForm id={id} />;
}

function EditableMonitorForm({ id }: { id: string | undefined }) {
  const client = useQueryClient();
  const regions = useRegions();
  const existing = useQuery({
    queryKey: ['monitor', id],
    queryFn: async () => (await api.get<{ data: Monitor }>(`/api/monitors/${id}`)).data,
    enabled: id !== undefined,
  });
  const contacts = useQuery({
    queryKey: ['contacts', 'all'],
    queryFn: async () => (await api.get<{ contacts: Contact[] }>('/api/contacts?per_page=100')).contacts,
  });
  const [draft, setDraft] = useState<MonitorDraft | null>(id === undefined ? emptyDraft() : null);
  useEffect(() => {
    if (existing.data && draft === null) setDraft(draftOf(existing.data));
  }, [existing.data, draft]);
  // The notification rules are edited apart from the rest of the draft (their own fields, their own body part).
  const [rules, setRules] = useState<RulesDraft | null>(id === undefined ? rulesDraftOf(undefined) : null);
  useEffect(() => {
    if (existing.data && rules === null) setRules(rulesDraftOf(existing.data.notification_rules));
  }, [existing.data, rules]);
  const [errors, setErrors] = useState<{ byField: Record<string, string>; unplaced: string[] }>({
    byField: {},
    unplaced: [],
  });
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) =>
      id === undefined
        ? (await api.post<{ data: Monitor }>('/api/monitors', body)).data
        : (await api.put<{ data: Monitor }>(`/api/monitors/${id}`, body)).data,
    onSuccess: async (saved) => {
      await client.invalidateQueries({ queryKey: ['monitors'] });
      await client.invalidateQueries({ queryKey: ['monitor', saved.id] });
      navigate(`/monitors/${saved.id}`);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.details.length > 0)
        setErrors(fieldErrors(error.details, [...shownFields(draft!.type), ...rulesFields(rules!)]));
    },
  });

  // After a refusal, keyboard and screen-reader users land on the first field to change.
  useEffect(() => {
    if (Object.keys(errors.byField).length > 0) document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);

  if (id !== undefined && existing.isPending) return <Loading what="the monitor" />;
  if (existing.isError) return <ErrorNote error={existing.error} />;
  if (draft === null || rules === null) return null;
  const set = <K extends keyof MonitorDraft>(key: K, value: MonitorDraft[K]) => setDraft({ ...draft, [key]: value });
  const err = (field: string) => errors.byField[field];
  const setSetting = (key: string, value: SettingValue) =>
    setDraft({
      ...draft,
      settings: { ...draft.settings, [draft.type]: { ...draft.settings[draft.type], [key]: value } },
    });
  const probed = isProbed(draft.type);
  // The address (probed types) comes first; the rest of the type's settings in a group of their own.
  const inputs = SETTINGS_FIELDS[draft.type].map((field) => (
    <SettingInput
      key={`${draft.type}.${field.key}`}
      field={field}
      value={draft.settings[draft.type][field.key] ?? field.initial}
      error={err(`settings.${draft.type}.${field.key}`)}
      onChange={(value) => setSetting(field.key, value)}
    />
  ));
  const [main, more] = probed ? [inputs[0], inputs.slice(1)] : [null, inputs];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({ byField: {}, unplaced: [] });
    save.mutate({ ...bodyOf(draft), notification_rules: rulesBody(rules) });
  };
  const general = save.error instanceof ApiError && save.error.details.length === 0 ? save.error : null;

  return (
    <section aria-labelledby="form-title">
      <p className="crumbs">
        <Link href="/monitors">Monitors</Link> /
      </p>
      <h1 id="form-title">{id === undefined ? 'New monitor' : `Edit ${existing.data?.name ?? ''}`}</h1>
      <form className="card form" onSubmit={submit} noValidate>
        {(errors.unplaced.length > 0 || general) && (
          <div className="note error" role="alert">
            {general ? general.message : 'The monitor was not saved:'}
            {errors.unplaced.length > 0 && (
              <ul>
                {errors.unplaced.map((e) => (
                  <li key={e}>{e}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {Object.keys(errors.byField).length > 0 && (
          <p className="note error" role="alert">
            Some fields need a change; they are marked below.
          </p>
        )}
        <Field label="Name" error={err('name')}>
          {(p) => (
            <input {...p} required maxLength={100} value={draft.name} onChange={(e) => set('name', e.target.value)} />
          )}
        </Field>
        <fieldset>
          <legend>Type</legend>
          <div className="choices">
            {MONITOR_TYPES.map((type) => (
              <label key={type} className="choice">
                <input type="radio" name="type" checked={draft.type === type} onChange={() => set('type', type)} />
                {TYPE_LABELS[type]}
              </label>
            ))}
          </div>
        </fieldset>
        {main}
        {probed && (
          <>
            <div className="row3">
              <Field label="Check every (seconds)" error={err('check_interval')} hint="10 to 600">
                {(p) => (
                  <input
                    {...p}
                    type="number"
                    min={10}
                    max={600}
                    value={draft.check_interval}
                    onChange={(e) => set('check_interval', e.target.value)}
                  />
                )}
              </Field>
              <Field label="Timeout (seconds)" error={err('timeout')} hint="5 to 60">
                {(p) => (
                  <input
                    {...p}
                    type="number"
                    min={5}
                    max={60}
                    value={draft.timeout}
                    onChange={(e) => set('timeout', e.target.value)}
                  />
                )}
              </Field>
              <Field label="Failed checks before down" error={err('fail_threshold')} hint="1 to 10">
                {(p) => (
                  <input
                    {...p}
                    type="number"
                    min={1}
                    max={10}
                    value={draft.fail_threshold}
                    onChange={(e) => set('fail_threshold', e.target.value)}
                  />
                )}
              </Field>
            </div>
            <fieldset
              className={err('regions') ? 'has-error' : ''}
              aria-describedby={err('regions') ? 'regions-error' : undefined}
            >
              <legend>Regions</legend>
              <div className="choices grid">
                {regionChoices(regions.data, draft.regions).map(({ id: region, label }) => (
                  <label key={region} className="choice">
                    <input
                      type="checkbox"
                      checked={draft.regions.includes(region)}
                      onChange={(e) =>
                        set(
                          'regions',
                          e.target.checked ? [...draft.regions, region] : draft.regions.filter((r) => r !== region),
                        )
                      }
                    />
                    {label}
                  </label>
                ))}
              </div>
              {err('regions') && (
                <p className="error" id="regions-error" role="alert">
                  {err('regions')}
                </p>
              )}
            </fieldset>
          </>
        )}
        {more.length > 0 && (
          <fieldset>
            <legend>{draft.type === 'heartbeat' ? 'Schedule' : `${TYPE_LABELS[draft.type]} settings`}</legend>
            {more}
          </fieldset>
        )}
        <fieldset className={err('contacts') ? 'has-error' : ''}>
          <legend>Notify</legend>
          {contacts.data?.length === 0 && (
            <p className="muted">
              No contacts yet. <Link href="/contacts/new">Add one</Link>.
            </p>
          )}
          <div className="choices grid">
            {(contacts.data ?? []).map((c) => (
              <label key={c.id} className="choice">
                <input
                  type="checkbox"
                  checked={draft.contacts.includes(c.id)}
                  onChange={(e) =>
                    set(
                      'contacts',
                      e.target.checked ? [...draft.contacts, c.id] : draft.contacts.filter((x) => x !== c.id),
                    )
                  }
                />
                {c.name} <span className="muted">({c.channel})</span>
              </label>
            ))}
          </div>
          {err('contacts') && (
            <p className="error" role="alert">
              {err('contacts')}
            </p>
          )}
        </fieldset>
        <NotificationRulesFields
          rules={rules}
          onChange={setRules}
          contacts={contacts.data ?? []}
          errors={errors.byField}
        />
        <div className="actions">
          <button className="primary" type="submit" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : id === undefined ? 'Create monitor' : 'Save changes'}
          </button>
          <Link className="button" href={id === undefined ? '/monitors' : `/monitors/${id}`}>
            Cancel
          </Link>
        </div>
      </form>
    </section>
  );
}
