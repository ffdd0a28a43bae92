import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CopyButton, ErrorNote, Field, Loading, Time } from '../components/common.tsx';
import { ApiError, api } from '../lib/api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import { agentCommand, useRegions, type PrivateRegion, type PublicRegion } from '../lib/regions.ts';
import { loadAllMonitors } from '../lib/queries.ts';
import { Link } from '../lib/router.tsx';
import { useCan, useMe } from '../lib/session.ts';

const agents = (n: number) => (n === 1 ? '1 agent online' : `${n} agents online`);

/** Creating a private region: id and name, the API's 422 details under their fields. */
function CreateRegion() {
  const client = useQueryClient();
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<{ byField: Record<string, string>; unplaced: string[] }>({
    byField: {},
    unplaced: [],
  });
  const create = useMutation({
    mutationFn: () => api.post('/api/regions', { id, name }),
    onSuccess: async () => {
      setId('');
      setName('');
      await client.invalidateQueries({ queryKey: ['regions'] });
    },
    onError: (error) => {
      if (error instanceof ApiError) setErrors(fieldErrors(error.details, ['id', 'name']));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({ byField: {}, unplaced: [] });
    create.mutate();
  };
  const general = create.error instanceof ApiError && create.error.details.length === 0 ? create.error : null;
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="new-region-title">
      <h2 id="new-region-title">New private region</h2>
      {(general || errors.unplaced.length > 0) && (
        <div className="note error" role="alert">
          {general?.message ?? 'The region was not created.'} {errors.unplaced.join(' ')}
        </div>
      )}
      <div className="row2">
        <Field
          label="Id"
          error={errors.byField.id}
          hint="3 to 32 of a-z, 0-9 and -, starting with a letter; what monitors list, such as office."
        >
          {(p) => (
            <input
              {...p}
              maxLength={32}
              autoComplete="off"
              spellCheck={false}
              value={id}
              onChange={(e) => setId(e.target.value)}
            />
          )}
        </Field>
        <Field label="Name" error={errors.byField.name} hint="Such as Berlin office.">
          {(p) => <input {...p} maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
      </div>
      <div className="actions">
        <button className="primary" type="submit" disabled={create.isPending}>
          {create.isPending ? 'Saving…' : 'Create region'}
        </button>
      </div>
    </form>
  );
}

/** One private region: its agents, how to start one, and delete (409 REGION_IN_USE said under it). */
function PrivateRegionCard({
  region,
  accountId,
  canWrite,
}: {
  region: PrivateRegion;
  accountId: string;
  canWrite: boolean;
}) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.delete(`/api/regions/${region.id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['regions'] }),
  });
  const inUse = remove.error instanceof ApiError && remove.error.code === 'REGION_IN_USE';
  // Refused while in use: the monitors that list the region, by name, to open and change.
  const users = useQuery({
    queryKey: ['monitors', 'all'],
    queryFn: () => loadAllMonitors(),
    enabled: inUse,
    select: (monitors) => monitors.filter((m) => m.regions.includes(region.id)),
  });
  const command = agentCommand(accountId, region.id);
  return (
    <article className="card" aria-labelledby={`region-${region.id}`}>
      <div className="heading">
        <h3 id={`region-${region.id}`}>
          {region.name} <span className="muted">({region.id})</span>
        </h3>
        <span className={region.agents_online > 0 ? 'badge status-up' : 'badge status-unknown'}>
          <span className="dot" aria-hidden="true" />
          {agents(region.agents_online)}
        </span>
      </div>
      <p className="muted">
        Created <Time at={region.created_at} />. With no agent online its checks are UNKNOWN, never DOWN.
      </p>
      <p>Start an agent where it reaches your targets and NATS (outbound connections only):</p>
      <pre className="code">{command}</pre>
      <p>
        <CopyButton text={command} label={`Copy the agent command of ${region.id}`} />
      </p>
      {canWrite && (
        <div className="actions">
          <button
            type="button"
            className="danger"
            aria-label={`Delete ${region.id}`}
            disabled={remove.isPending}
            onClick={() => {
              if (confirm(`Delete the private region “${region.name}” (${region.id})?`)) remove.mutate();
            }}
          >
            Delete
          </button>
        </div>
      )}
      {inUse ? (
        <div className="note error" role="alert">
          Not deleted: monitors still list this region. Take it out of them first
          {users.data && users.data.length > 0 ? ':' : '.'}
          {users.data && users.data.length > 0 && (
            <ul>
              {users.data.map((m) => (
                <li key={m.id}>
                  <Link href={`/monitors/${m.id}/edit`}>{m.name}</Link>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <ErrorNote error={remove.error} />
      )}
    </article>
  );
}

/** Regions: the account's private regions (agents, start command, create, delete), and the public ones. */
export function RegionsPage() {
  const canWrite = useCan('regions:write');
  const me = useMe();
  const regions = useRegions();
  const publics = (regions.data ?? []).filter((r): r is PublicRegion => r.type === 'public');
  const privates = (regions.data ?? []).filter((r): r is PrivateRegion => r.type === 'private');
  return (
    <section aria-labelledby="regions-title">
      <h1 id="regions-title">Regions</h1>
      <p>
        Monitors are checked from the public regions below, and from private regions: agents you run inside your own
        network, for targets the internet cannot reach.
      </p>
      {regions.isPending && <Loading what="regions" />}
      <ErrorNote error={regions.error} />
      <h2>Private regions</h2>
      <p className="note">
        Enrollment tokens are not built yet: an agent of a private region connects to NATS with a user the operator adds
        to the server's configuration for that region (docs/operations.md, “Private regions”). Replace nats.example.com
        and the password in the command with yours.
      </p>
      {regions.data && privates.length === 0 && <p className="muted">No private regions yet.</p>}
      {privates.map((r) => (
        <PrivateRegionCard key={r.id} region={r} accountId={me.data?.account_id ?? ''} canWrite={canWrite} />
      ))}
      {canWrite && <CreateRegion />}
      <h2>Public regions</h2>
      {regions.data && (
        <dl className="region-groups">
          {[...new Set(publics.map((r) => r.continent))].map((continent) => (
            <div key={continent}>
              <dt>{continent}</dt>
              <dd>
                {publics
                  .filter((r) => r.continent === continent)
                  .map((r) => (
                    <span key={r.id} className="region-id">
                      {r.id} <span className="muted">({r.name})</span>
                    </span>
                  ))}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
