import { useQuery } from '@tanstack/react-query';
import { ErrorNote, Loading, Time } from '../components/common.tsx';
import { api } from '../lib/api.ts';

interface StatusPage {
  id: string;
  name: string;
  monitors: string[];
  period: number;
  custom_domain: string | null;
  url: string;
  updated_at: number;
}

/** Status pages: the list with links to the public pages. */
export function StatusPagesPage(_props: { id?: string }) {
  const list = useQuery({
    queryKey: ['status-pages'],
    queryFn: async () =>
      (await api.get<{ data: { status_pages: StatusPage[] } }>('/api/status_pages?per_page=100')).data.status_pages,
  });
  return (
    <section aria-labelledby="pages-title">
      <h1 id="pages-title">Status pages</h1>
      <p className="note">
        Creating and editing status pages in the dashboard is not built yet; use the API (POST /api/status_pages).
      </p>
      {list.isPending && <Loading what="status pages" />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p className="muted">No status pages yet.</p>}
      <ul className="plain cards">
        {(list.data ?? []).map((p) => (
          <li key={p.id} className="card">
            <h2>{p.name}</h2>
            <p>
              {p.monitors.length} monitors, {p.period} days{p.custom_domain ? `, on ${p.custom_domain}` : ''}. Changed{' '}
              <Time at={p.updated_at} />.
            </p>
            <a href={p.url} target="_blank" rel="noopener">
              Open the public page
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
