import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ErrorNote, Field, Loading, TableScroll, Time } from '../components/common.tsx';
import { api, query } from '../lib/api.ts';
import { Link } from '../lib/router.tsx';
import { useCan } from '../lib/session.ts';
import { duration } from '../lib/time.ts';

export interface Incident {
  id: string;
  monitor_id: string;
  monitor_name: string;
  is_resolved: boolean;
  started_at: number;
  resolved_at: number | null;
  duration: number;
  reason: string;
  user_comment: string;
  check_results: Record<
    string,
    {
      status: string;
      response_time_ms: number | null;
      error: string | null;
      checked_at: number;
      checker_ip: string | null;
    }
  >;
}

function IncidentList({ resolved }: { resolved: boolean }) {
  const list = useQuery({
    queryKey: ['incidents', resolved],
    queryFn: async () =>
      (await api.get<{ data: { incidents: Incident[] } }>(`/api/incidents${query({ resolved, per_page: 50 })}`)).data
        .incidents,
    refetchInterval: 30_000,
  });
  if (list.isPending) return <Loading what="incidents" />;
  if (list.isError) return <ErrorNote error={list.error} />;
  if (list.data.length === 0)
    return <p className="muted">{resolved ? 'No resolved incidents.' : 'Nothing is down.'}</p>;
  return (
    <TableScroll label="Incidents">
      <table>
        <thead>
          <tr>
            <th scope="col">Monitor</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {list.data.map((i) => (
            <tr key={i.id}>
              <td>
                <Link href={`/incidents/${i.id}`}>{i.monitor_name}</Link>
              </td>
              <td>
                <Time at={i.started_at} />
              </td>
              <td>{duration(i.duration)}</td>
              <td>{i.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Incidents: the open ones first, then the resolved ones. */
export function IncidentsPage() {
  return (
    <section aria-labelledby="incidents-title">
      <h1 id="incidents-title">Incidents</h1>
      <section className="card" aria-labelledby="open-title">
        <h2 id="open-title">Open</h2>
        <IncidentList resolved={false} />
      </section>
      <section className="card" aria-labelledby="resolved-title">
        <h2 id="resolved-title">Resolved</h2>
        <IncidentList resolved={true} />
      </section>
    </section>
  );
}

/** One incident: timeline, the evidence that opened it, and its comment. */
export function IncidentPage({ id }: { id: string }) {
  const client = useQueryClient();
  const canWrite = useCan('incidents:write');
  const incident = useQuery({
    queryKey: ['incident', id],
    queryFn: async () => (await api.get<{ data: Incident }>(`/api/incidents/${id}`)).data,
  });
  const [comment, setComment] = useState<string | null>(null);
  useEffect(() => {
    if (incident.data && comment === null) setComment(incident.data.user_comment);
  }, [incident.data, comment]);
  const save = useMutation({
    mutationFn: (text: string) => api.put<{ data: Incident }>(`/api/incidents/${id}/comment`, { comment: text }),
    onSuccess: (answer) => client.setQueryData(['incident', id], answer.data),
  });
  if (incident.isPending) return <Loading what="the incident" />;
  if (incident.isError) return <ErrorNote error={incident.error} />;
  const i = incident.data;
  return (
    <article aria-labelledby="incident-title">
      <p className="crumbs">
        <Link href="/incidents">Incidents</Link> /
      </p>
      <h1 id="incident-title">
        {i.monitor_name}: {i.reason}
      </h1>
      <ol className="timeline card">
        <li>
          <Time at={i.started_at} />: went down ({i.reason})
        </li>
        <li>
          {i.resolved_at === null ? (
            <>Still down after {duration(i.duration)}</>
          ) : (
            <>
              <Time at={i.resolved_at} />: back up after {duration(i.duration)}
            </>
          )}
        </li>
      </ol>
      <section className="card" aria-labelledby="evidence-title">
        <h2 id="evidence-title">Evidence</h2>
        <p className="muted">The latest result of each region when the incident opened.</p>
        <TableScroll label="Evidence">
          <table>
            <thead>
              <tr>
                <th scope="col">Region</th>
                <th scope="col">Result</th>
                <th scope="col">Reason</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(i.check_results).map(([region, r]) => (
                <tr key={region} className={`result-${r.status}`}>
                  <td>{region}</td>
                  <td>{r.status}</td>
                  <td>{r.error ?? '–'}</td>
                  <td>
                    <Time at={r.checked_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
        <p>
          <Link href={`/monitors/${i.monitor_id}`}>Open the monitor</Link>
        </p>
      </section>
      {!canWrite && i.user_comment && (
        <section className="card" aria-labelledby="comment-title">
          <h2 id="comment-title">Comment</h2>
          <p className="wrap">{i.user_comment}</p>
        </section>
      )}
      {canWrite && (
        <form
          className="card"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(comment ?? '');
          }}
        >
          <Field label="Comment" error={save.error instanceof Error ? save.error.message : undefined}>
            {(p) => (
              <textarea
                {...p}
                rows={4}
                maxLength={5000}
                value={comment ?? ''}
                onChange={(e) => setComment(e.target.value)}
              />
            )}
          </Field>
          <button className="primary" type="submit" disabled={save.isPending}>
            Save comment
          </button>
          {save.isSuccess && (
            <span className="muted" role="status">
              {' '}
              Saved.
            </span>
          )}
        </form>
      )}
    </article>
  );
}
