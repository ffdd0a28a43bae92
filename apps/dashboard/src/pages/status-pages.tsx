import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNote, Field, Loading, ReadOnlyNote, Time } from '../components/common.tsx';
import { ApiError, api } from '../lib/api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import { FormActions } from '../components/form-actions.tsx';
import { MonitorPicker } from '../components/monitor-picker.tsx';
import { Link, navigate } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';

interface StatusPage {
  id: string;
  name: string;
  monitors: string[];
  period: 7 | 30 | 90;
  custom_domain: string | null;
  show_incident_reasons: boolean;
  basic_auth: string | null;
  url: string;
  created_at: number;
  updated_at: number;
}

function PageList() {
  const canWrite = useCan('status_pages:write');
  const list = useQuery({
    queryKey: ['status-pages'],
    queryFn: async () =>
      (await api.get<{ data: { status_pages: StatusPage[] } }>('/api/status_pages?per_page=100')).data.status_pages,
  });
  return (
    <section aria-labelledby="pages-title">
      <div className="heading">
        <h1 id="pages-title">Status pages</h1>
        {canWrite && (
          <Link className="button primary" href="/status-pages/new">
            New status page
          </Link>
        )}
      </div>
      {list.isPending && <Loading what="status pages" />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && (
        <div className="empty card">
          <h2>No status pages yet</h2>
          <p>A status page shows chosen monitors to the public, at its own address or on your domain.</p>
        </div>
      )}
      <ul className="plain cards">
        {(list.data ?? []).map((p) => (
          <li key={p.id} className="card">
            <h2>{canWrite ? <Link href={`/status-pages/${p.id}`}>{p.name}</Link> : p.name}</h2>
            <p>
              {p.monitors.length} {p.monitors.length === 1 ? 'monitor' : 'monitors'}, the last {p.period} days
              {p.custom_domain ? `, on ${p.custom_domain}` : ''}
              {p.basic_auth ? ', behind a password' : ''}. Changed <Time at={p.updated_at} />.
            </p>
            <a href={p.url} target="_blank" rel="noopener">
              Open the public page<span className="sr-only"> of {p.name} (new tab)</span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

function PageForm({ id }: { id?: string }) {
  const client = useQueryClient();
  const existing = useQuery({
    queryKey: ['status-pages', id],
    queryFn: async () => (await api.get<{ data: StatusPage }>(`/api/status_pages/${id}`)).data,
    enabled: id !== undefined,
  });
  const [draft, setDraft] = useState({
    name: '',
    monitors: [] as string[],
    period: '30',
    custom_domain: '',
    show_incident_reasons: false,
    basic_auth: '',
  });
  const [loaded, setLoaded] = useState(id === undefined);
  useEffect(() => {
    const p = existing.data;
    if (!p || loaded) return;
    setDraft({
      name: p.name,
      monitors: p.monitors,
      period: String(p.period),
      custom_domain: p.custom_domain ?? '',
      show_incident_reasons: p.show_incident_reasons,
      basic_auth: p.basic_auth ?? '',
    });
    setLoaded(true);
  }, [existing.data, loaded]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        name: draft.name,
        monitors: draft.monitors,
        period: Number(draft.period),
        custom_domain: draft.custom_domain.trim() === '' ? null : draft.custom_domain.trim(),
        show_incident_reasons: draft.show_incident_reasons,
        basic_auth: draft.basic_auth === '' ? null : draft.basic_auth,
      };
      return id === undefined
        ? (await api.post<{ data: StatusPage }>('/api/status_pages', body)).data
        : (await api.put<{ data: StatusPage }>(`/api/status_pages/${id}`, body)).data;
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['status-pages'] });
      navigate('/status-pages');
    },
    onError: (error) => {
      if (error instanceof ApiError) {
        const mapped = fieldErrors(error.details, [
          'name',
          'monitors',
          'period',
          'custom_domain',
          'show_incident_reasons',
          'basic_auth',
        ]);
        setErrors({
          ...mapped.byField,
          general: mapped.unplaced.join(' ') || (error.details.length ? '' : error.message),
        });
      }
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/api/status_pages/${id}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['status-pages'] });
      navigate('/status-pages');
    },
  });
  if (id !== undefined && existing.isPending) return <Loading what="the status page" />;
  if (existing.isError) return <ErrorNote error={existing.error} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    save.mutate();
  };

  return (
    <section aria-labelledby="page-title">
      <p className="crumbs">
        <Link href="/status-pages">Status pages</Link> /
      </p>
      <h1 id="page-title">{id === undefined ? 'New status page' : `Edit ${existing.data?.name ?? ''}`}</h1>
      {existing.data && (
        <p>
          <a href={existing.data.url} target="_blank" rel="noopener">
            Open the public page (new tab)
          </a>
        </p>
      )}
      <form className="card form" onSubmit={submit} noValidate>
        {errors.general && (
          <p className="note error" role="alert">
            {errors.general}
          </p>
        )}
        <Field label="Name" error={errors.name}>
          {(p) => (
            <input
              {...p}
              maxLength={100}
              value={draft.name}
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            />
          )}
        </Field>
        <MonitorPicker
          legend={`Monitors shown (${draft.monitors.length} of at most 20, in the order ticked)`}
          chosen={draft.monitors}
          onChange={(monitors) => setDraft({ ...draft, monitors })}
          error={errors.monitors}
        />
        <div className="row3">
          <Field label="Days shown" error={errors.period}>
            {(p) => (
              <select {...p} value={draft.period} onChange={(e) => setDraft({ ...draft, period: e.target.value })}>
                <option value="7">7</option>
                <option value="30">30</option>
                <option value="90">90</option>
              </select>
            )}
          </Field>
          <Field label="Custom domain (optional)" error={errors.custom_domain} hint="Point a CNAME at Picket.">
            {(p) => (
              <input
                {...p}
                placeholder="status.example.com"
                value={draft.custom_domain}
                onChange={(e) => setDraft({ ...draft, custom_domain: e.target.value })}
              />
            )}
          </Field>
          <Field
            label="Password (optional)"
            error={errors.basic_auth}
            hint={draft.basic_auth === '[REDACTED]' ? 'Set; leave [REDACTED] to keep it.' : 'user:password'}
          >
            {(p) => (
              <input
                {...p}
                autoComplete="off"
                value={draft.basic_auth}
                onChange={(e) => setDraft({ ...draft, basic_auth: e.target.value })}
              />
            )}
          </Field>
        </div>
        <label className="choice">
          <input
            type="checkbox"
            checked={draft.show_incident_reasons}
            onChange={(e) => setDraft({ ...draft, show_incident_reasons: e.target.checked })}
          />
          Say why each incident happened (addresses are taken out)
        </label>
        <FormActions
          save={id === undefined ? 'Create status page' : 'Save changes'}
          saving={save.isPending}
          cancel="/status-pages"
          {...(id === undefined
            ? {}
            : { confirmDelete: `Delete the status page “${draft.name}”? Its public address stops working.` })}
          onDelete={() => remove.mutate()}
          deleting={remove.isPending}
          deleteError={remove.error}
        />
      </form>
    </section>
  );
}

/** Status pages: the list with links to the public pages, or a page's form. */
export function StatusPagesPage({ id, creating }: { id?: string; creating?: boolean }) {
  const canWrite = useCan('status_pages:write');
  if ((creating || id !== undefined) && !canWrite)
    return <ReadOnlyNote what="status pages" back={<Link href="/status-pages">Back to the status pages</Link>} />;
  if (creating) return <PageForm />;
  if (id !== undefined) return <PageForm id={id} />;
  return <PageList />;
}
