import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNote, Field, Loading, ReadOnlyNote, Time } from '../components/common.tsx';
import { FormActions } from '../components/form-actions.tsx';
import { ApiError, api } from '../lib/api.ts';
import {
  CHANNEL_IDS,
  CHANNELS,
  detailsBody,
  formValues,
  REDACTED,
  type Channel,
  type ChannelField,
  type FormValue,
} from '../lib/channels.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import { Link, navigate } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';

interface ContactError {
  code: string;
  message: string;
  failed_at: number;
  consecutive_failures: number;
}

export interface Contact {
  id: string;
  name: string;
  channel: Channel | 'push';
  details: Record<string, unknown>;
  active: boolean;
  down_alerts_only: boolean;
  created_at: number;
  error: ContactError | null;
}

const channelLabel = (channel: string) => (channel in CHANNELS ? CHANNELS[channel as Channel].label : channel);

function LastError({ error }: { error: ContactError | null }) {
  if (!error) return <span className="muted">none</span>;
  return (
    <span className="error-text">
      {error.message} (<Time at={error.failed_at} />
      {error.consecutive_failures > 1 ? `, ${error.consecutive_failures} failures in a row` : ''})
    </span>
  );
}

/** Send test and reactivate, with what happened said next to them. */
function ContactActions({ contact }: { contact: Contact }) {
  const client = useQueryClient();
  const test = useMutation({
    mutationFn: async () =>
      (await api.post<{ data: { message: string } }>(`/api/contacts/${contact.id}/test`)).data.message,
    onSettled: () => client.invalidateQueries({ queryKey: ['contacts'] }),
  });
  const reactivate = useMutation({
    mutationFn: () => api.post(`/api/contacts/${contact.id}/reactivate`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['contacts'] }),
  });
  return (
    <div className="actions">
      <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
        {test.isPending ? 'Sending…' : 'Send test'}
      </button>
      {!contact.active && (
        <button type="button" onClick={() => reactivate.mutate()} disabled={reactivate.isPending}>
          Reactivate
        </button>
      )}
      <span role="status" className={test.isError || reactivate.isError ? 'error' : 'muted'}>
        {test.isSuccess ? test.data : ''}
        {test.isError ? `Test failed: ${test.error.message}` : ''}
        {reactivate.isError ? reactivate.error.message : ''}
      </span>
    </div>
  );
}

function ContactList() {
  const canWrite = useCan('contacts:write');
  const list = useQuery({
    queryKey: ['contacts', 'list'],
    queryFn: async () => (await api.get<{ contacts: Contact[] }>('/api/contacts?per_page=100')).contacts,
  });
  return (
    <section aria-labelledby="contacts-title">
      <div className="heading">
        <h1 id="contacts-title">Contacts</h1>
        {canWrite && (
          <Link className="button primary" href="/contacts/new">
            New contact
          </Link>
        )}
      </div>
      {list.isPending && <Loading what="contacts" />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && (
        <div className="empty card">
          <h2>No contacts yet</h2>
          <p>A contact is where Picket tells someone that a monitor went down: e-mail, a webhook, chat, paging.</p>
        </div>
      )}
      {list.data && list.data.length > 0 && (
        <div className="table-scroll card">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Channel</th>
                <th scope="col">State</th>
                <th scope="col">Last error</th>
                {canWrite && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    {c.channel === 'push' || !canWrite ? c.name : <Link href={`/contacts/${c.id}`}>{c.name}</Link>}
                  </td>
                  <td>{channelLabel(c.channel)}</td>
                  <td>{c.active ? 'active' : 'deactivated'}</td>
                  <td className="wrap">
                    <LastError error={c.error} />
                  </td>
                  {canWrite && (
                    <td>
                      <ContactActions contact={c} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function DetailInput({
  field,
  value,
  error,
  onChange,
}: {
  field: ChannelField;
  value: FormValue | undefined;
  error: string | undefined;
  onChange: (value: FormValue) => void;
}) {
  if (field.kind === 'checkbox') {
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
  }
  return (
    <Field
      label={`${field.label}${field.required ? '' : ' (optional)'}`}
      error={error}
      hint={field.kind === 'secret' && value === REDACTED ? 'Stored; leave [REDACTED] to keep it.' : field.hint}
    >
      {(p) =>
        field.kind === 'select' ? (
          <select {...p} value={String(value ?? '')} onChange={(e) => onChange(e.target.value)}>
            {(field.options ?? []).map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        ) : (
          <input
            {...p}
            type={field.kind === 'email' ? 'email' : field.kind === 'url' ? 'url' : 'text'}
            autoComplete="off"
            spellCheck={false}
            value={String(value ?? '')}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}

/** Create (no id) or edit a contact: the fields come from the channel table. */
function ContactForm({ id }: { id?: string }) {
  const client = useQueryClient();
  const existing = useQuery({
    queryKey: ['contacts', id],
    queryFn: async () => (await api.get<{ contact: Contact }>(`/api/contacts/${id}`)).contact,
    enabled: id !== undefined,
  });
  const [channel, setChannel] = useState<Channel>('email');
  const [name, setName] = useState('');
  const [downOnly, setDownOnly] = useState(false);
  const [values, setValues] = useState<Record<string, FormValue>>(() => formValues('email'));
  const [loaded, setLoaded] = useState(id === undefined);
  useEffect(() => {
    const c = existing.data;
    if (!c || loaded || c.channel === 'push') return;
    setChannel(c.channel);
    setName(c.name);
    setDownOnly(c.down_alerts_only);
    setValues(formValues(c.channel, c.details));
    setLoaded(true);
  }, [existing.data, loaded]);
  const [errors, setErrors] = useState<{ byField: Record<string, string>; unplaced: string[] }>({
    byField: {},
    unplaced: [],
  });
  const fields = CHANNELS[channel].fields as readonly ChannelField[];
  const save = useMutation({
    mutationFn: async () => {
      const body = { name, down_alerts_only: downOnly, details: detailsBody(channel, values, id !== undefined) };
      return id === undefined
        ? (await api.post<{ contact: Contact }>('/api/contacts', { ...body, channel })).contact
        : (await api.put<{ contact: Contact }>(`/api/contacts/${id}`, body)).contact;
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['contacts'] });
      navigate('/contacts');
    },
    onError: (error) => {
      if (error instanceof ApiError)
        setErrors(fieldErrors(error.details, ['name', 'channel', ...fields.map((f) => `details.${f.key}`), 'details']));
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/api/contacts/${id}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['contacts'] });
      navigate('/contacts');
    },
  });

  if (id !== undefined && existing.isPending) return <Loading what="the contact" />;
  if (existing.isError) return <ErrorNote error={existing.error} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({ byField: {}, unplaced: [] });
    save.mutate();
  };
  const general = save.error instanceof ApiError && save.error.details.length === 0 ? save.error : null;

  return (
    <section aria-labelledby="contact-title">
      <p className="crumbs">
        <Link href="/contacts">Contacts</Link> /
      </p>
      <h1 id="contact-title">{id === undefined ? 'New contact' : `Edit ${existing.data?.name ?? ''}`}</h1>
      {existing.data && (
        <div className="card">
          <p>
            {existing.data.active ? 'Active.' : 'Deactivated after repeated failed deliveries.'} Last error:{' '}
            <LastError error={existing.data.error} />
          </p>
          <ContactActions contact={existing.data} />
        </div>
      )}
      <form className="card form" onSubmit={submit} noValidate>
        {(general || errors.unplaced.length > 0 || errors.byField.details) && (
          <div className="note error" role="alert">
            {general?.message ?? 'The contact was not saved.'} {errors.byField.details} {errors.unplaced.join(' ')}
          </div>
        )}
        <Field label="Name" error={errors.byField.name}>
          {(p) => <input {...p} maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field
          label="Channel"
          error={errors.byField.channel}
          hint={id === undefined ? undefined : 'The channel is chosen once.'}
        >
          {(p) => (
            <select
              {...p}
              value={channel}
              disabled={id !== undefined}
              onChange={(e) => {
                const next = e.target.value as Channel;
                setChannel(next);
                setValues(formValues(next));
              }}
            >
              {CHANNEL_IDS.map((c) => (
                <option key={c} value={c}>
                  {CHANNELS[c].label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {fields.map((field) => (
          <DetailInput
            key={`${channel}.${field.key}`}
            field={field}
            value={values[field.key]}
            error={errors.byField[`details.${field.key}`]}
            onChange={(value) => setValues({ ...values, [field.key]: value })}
          />
        ))}
        <label className="choice">
          <input type="checkbox" checked={downOnly} onChange={(e) => setDownOnly(e.target.checked)} />
          Down alerts only (no recovery messages)
        </label>
        <FormActions
          save={id === undefined ? 'Create contact' : 'Save changes'}
          saving={save.isPending}
          cancel="/contacts"
          {...(id === undefined ? {} : { confirmDelete: `Delete the contact “${name}”? Monitors stop notifying it.` })}
          onDelete={() => remove.mutate()}
          deleting={remove.isPending}
          deleteError={remove.error}
        />
      </form>
    </section>
  );
}

/** Contacts: the list, or a contact's form (`/contacts/new`, `/contacts/{id}`). */
export function ContactsPage({ id, creating }: { id?: string; creating?: boolean }) {
  const canWrite = useCan('contacts:write');
  if ((creating || id !== undefined) && !canWrite)
    return <ReadOnlyNote what="contacts" back={<Link href="/contacts">Back to the contacts</Link>} />;
  if (creating) return <ContactForm />;
  if (id !== undefined) return <ContactForm id={id} />;
  return <ContactList />;
}
