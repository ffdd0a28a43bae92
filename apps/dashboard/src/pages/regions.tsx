import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CopyButton, ErrorNote, Field, Loading, Time } from '../components/common.tsx';
import { ApiError, api } from '../lib/api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import {
  NATS_URL_PLACEHOLDER,
  agentCommand,
  useRegionAgents,
  useRegions,
  type AgentToken,
  type EnrolledAgent,
  type PrivateRegion,
  type PublicRegion,
} from '../lib/regions.ts';
import { loadAllMonitors } from '../lib/queries.ts';
import { Link } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';

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

const OnlineBadge = ({ agent }: { agent: EnrolledAgent }) => (
  <span className={agent.online ? 'badge status-up' : 'badge status-unknown'}>
    <span className="dot" aria-hidden="true" />
    {agent.online ? 'online' : 'offline'}
  </span>
);

/** A private region's enrolled agents, each with revoke (asked first) for those who may write regions. */
function RegionAgents({ region, canWrite }: { region: PrivateRegion; canWrite: boolean }) {
  const client = useQueryClient();
  const agentsOf = useRegionAgents(region.id);
  const revoke = useMutation({
    mutationFn: (agent: EnrolledAgent) => api.delete(`/api/regions/${region.id}/agents/${agent.id}`),
    // A 503 still records the revocation: the list is read again either way.
    onSettled: () => client.invalidateQueries({ queryKey: ['regions'] }),
  });
  const title = `region-${region.id}-agents`;
  return (
    <section aria-labelledby={title}>
      <h4 id={title}>Enrolled agents</h4>
      {agentsOf.isPending && <Loading what="agents" />}
      <ErrorNote error={agentsOf.error} />
      {agentsOf.data?.length === 0 && <p className="muted">No agent enrolled yet.</p>}
      {agentsOf.data && agentsOf.data.length > 0 && (
        <ul className="plain agent-list">
          {agentsOf.data.map((agent) => (
            <li key={agent.id}>
              <strong className="agent-name">{agent.name}</strong>
              <OnlineBadge agent={agent} />
              <span className="muted">
                enrolled <Time at={agent.enrolled_at} />
              </span>
              {canWrite && (
                <button
                  type="button"
                  className="danger"
                  aria-label={`Revoke agent ${agent.name}`}
                  disabled={revoke.isPending}
                  onClick={() => {
                    if (
                      confirm(
                        `Revoke the agent “${agent.name}” of ${region.id}? NATS disconnects it and refuses its credentials from then on.`,
                      )
                    )
                      revoke.mutate(agent);
                  }}
                >
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={revoke.error} />
    </section>
  );
}

/**
 * How an agent of the region starts: with write, a one-time enrollment token (kept in this
 * component only: the API shows it once) and the command that uses it; the API's refusal (503
 * without NATS_AUTH_DIR) said in the card.
 */
function StartAgent({ region, canWrite }: { region: PrivateRegion; canWrite: boolean }) {
  const [issued, setIssued] = useState<AgentToken | null>(null);
  const create = useMutation({
    mutationFn: async () => (await api.post<{ data: AgentToken }>(`/api/regions/${region.id}/agent_tokens`)).data,
    onSuccess: (token) => setIssued(token),
  });
  const title = `region-${region.id}-start`;
  const command = issued ? agentCommand(issued) : null;
  return (
    <section aria-labelledby={title}>
      <h4 id={title}>Start an agent</h4>
      <p>
        {canWrite
          ? 'Create an enrollment token, then run'
          : 'Someone who may change regions creates an enrollment token here; run'}{' '}
        the command shown with it where the agent reaches your targets and NATS (outbound connections only). On its
        first start the agent trades the token for NATS credentials of its own.
      </p>
      {canWrite && (
        <div className="actions">
          <button
            type="button"
            aria-label={`Create enrollment token for ${region.id}`}
            disabled={create.isPending}
            onClick={() => {
              setIssued(null);
              create.mutate();
            }}
          >
            {create.isPending ? 'Creating…' : 'Create enrollment token'}
          </button>
        </div>
      )}
      <ErrorNote error={create.error} />
      {issued && command && (
        <div className="note ok issued-token">
          <p role="status">
            <strong>Copy the token now: it is not shown again.</strong> It enrolls one agent, once, until{' '}
            <Time at={issued.expires_at} /> (24 hours).
          </p>
          <p className="code-label">Enrollment token</p>
          <pre className="code agent-token">{issued.token}</pre>
          <p>
            <CopyButton text={issued.token} label={`Copy the enrollment token for ${region.id}`} />
          </p>
          <p className="code-label">Agent start command</p>
          <pre className="code agent-command">{command}</pre>
          <p>
            <CopyButton text={command} label={`Copy the agent start command for ${region.id}`} />
          </p>
          <p className="hint">
            Replace {NATS_URL_PLACEHOLDER} with your NATS address (and add NATS_CA_FILE when its certificate is from
            your own CA). The agent writes its credentials to NATS_CREDS_FILE; later starts use that file, not the
            token.
          </p>
        </div>
      )}
    </section>
  );
}

/** One private region: its agents, how to start one, and delete (409 REGION_IN_USE said under it). */
function PrivateRegionCard({ region, canWrite }: { region: PrivateRegion; canWrite: boolean }) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.delete(`/api/regions/${region.id}`),
    // Only the list: its agents' query would ask about a region that is gone (404).
    onSuccess: () => client.invalidateQueries({ queryKey: ['regions'], exact: true }),
  });
  const inUse = remove.error instanceof ApiError && remove.error.code === 'REGION_IN_USE';
  // Refused while in use: the monitors that list the region, by name, to open and change.
  const users = useQuery({
    queryKey: ['monitors', 'all'],
    queryFn: () => loadAllMonitors(),
    enabled: inUse,
    select: (monitors) => monitors.filter((m) => m.regions.includes(region.id)),
  });
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
      <RegionAgents region={region} canWrite={canWrite} />
      <StartAgent region={region} canWrite={canWrite} />
      {canWrite && (
        <div className="actions region-delete">
          <button
            type="button"
            className="danger"
            aria-label={`Delete region ${region.id}`}
            disabled={remove.isPending}
            onClick={() => {
              if (confirm(`Delete the private region “${region.name}” (${region.id})?`)) remove.mutate();
            }}
          >
            Delete region
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

/** Regions: the account's private regions (agents, enrollment tokens, create, delete), and the public ones. */
export function RegionsPage() {
  const canWrite = useCan('regions:write');
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
      <p className="muted">
        Each agent of a private region connects to NATS with credentials of its own, which it gets once for a one-time
        enrollment token; revoking it disconnects it (docs/operations.md, “Private regions”).
      </p>
      {regions.data && privates.length === 0 && <p className="muted">No private regions yet.</p>}
      {privates.map((r) => (
        <PrivateRegionCard key={r.id} region={r} canWrite={canWrite} />
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
