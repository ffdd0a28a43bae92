import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorNote, Loading } from '../components/common.tsx';
import { api } from '../lib/api.ts';

interface Contact {
  id: string;
  name: string;
  channel: string;
  active: boolean;
  down_alerts_only: boolean;
  error: string | null;
}

function ContactRow({ contact }: { contact: Contact }) {
  const client = useQueryClient();
  const test = useMutation({
    mutationFn: async () =>
      (await api.post<{ data: { message: string } }>(`/api/contacts/${contact.id}/test`)).data.message,
  });
  const reactivate = useMutation({
    mutationFn: () => api.post(`/api/contacts/${contact.id}/reactivate`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['contacts'] }),
  });
  return (
    <tr>
      <td>{contact.name}</td>
      <td>{contact.channel}</td>
      <td>{contact.active ? 'active' : 'deactivated'}</td>
      <td className="wrap">{contact.error ?? '–'}</td>
      <td className="actions">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          Send test
        </button>
        {!contact.active && (
          <button type="button" onClick={() => reactivate.mutate()} disabled={reactivate.isPending}>
            Reactivate
          </button>
        )}
        <span role="status" className={test.isError ? 'error' : 'muted'}>
          {test.isSuccess ? test.data : test.isError ? test.error.message : ''}
        </span>
      </td>
    </tr>
  );
}

/** Contacts: the list, with a test send, reactivation and each contact's last error. */
export function ContactsPage(_props: { id?: string }) {
  const list = useQuery({
    queryKey: ['contacts', 'list'],
    queryFn: async () => (await api.get<{ contacts: Contact[] }>('/api/contacts?per_page=100')).contacts,
  });
  return (
    <section aria-labelledby="contacts-title">
      <h1 id="contacts-title">Contacts</h1>
      <p className="note">
        Creating and editing contacts in the dashboard is not built yet; use the API (POST /api/contacts).
      </p>
      {list.isPending && <Loading what="contacts" />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p className="muted">No contacts yet.</p>}
      {list.data && list.data.length > 0 && (
        <div className="table-scroll card">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Channel</th>
                <th scope="col">State</th>
                <th scope="col">Last error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((c) => (
                <ContactRow key={c.id} contact={c} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
