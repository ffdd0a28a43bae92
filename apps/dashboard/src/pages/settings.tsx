// The API's own list (a pure module, bundled like libs/contracts' regions).
import { PERMISSIONS } from '../../../coordinator/src/auth/permissions.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CopyButton, ErrorNote, Field, Loading, TableScroll, Time } from '../components/common.tsx';
import { ApiError, api } from '../lib/api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import { useAccount } from '../lib/queries.ts';
import type { Me, User } from '../lib/session.ts';

interface ApiKey {
  id: string;
  name: string;
  permissions: string[];
  created_at: number;
  last_used_at: number | null;
  prefix: string;
}

function NewKey() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>([...PERMISSIONS]);
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async () =>
      (await api.post<{ data: { key: string } }>('/api/keys', { name, permissions: chosen })).data.key,
    onSuccess: async (key) => {
      setCreated(key);
      setName('');
      await client.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const errors =
    create.error instanceof ApiError ? fieldErrors(create.error.details, ['name', 'permissions']).byField : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    create.mutate();
  };
  return (
    <form onSubmit={submit} className="form">
      <h3>New key</h3>
      <Field label="Name" error={errors.name}>
        {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />}
      </Field>
      <fieldset className={errors.permissions ? 'has-error' : ''}>
        <legend>Permissions</legend>
        <div className="choices grid">
          {PERMISSIONS.map((permission) => (
            <label key={permission} className="choice">
              <input
                type="checkbox"
                checked={chosen.includes(permission)}
                onChange={(e) =>
                  setChosen(e.target.checked ? [...chosen, permission] : chosen.filter((c) => c !== permission))
                }
              />
              {permission}
            </label>
          ))}
        </div>
        {errors.permissions && (
          <p className="error" role="alert">
            {errors.permissions}
          </p>
        )}
      </fieldset>
      {create.error && !(create.error instanceof ApiError && create.error.details.length > 0) && (
        <ErrorNote error={create.error} />
      )}
      <button className="primary" type="submit" disabled={create.isPending}>
        Create key
      </button>
      {created && (
        <div className="note ok" role="status">
          <p>
            <strong>Copy the key now: it is shown only once.</strong>
          </p>
          <code className="secret">{created}</code> <CopyButton text={created} />
        </div>
      )}
    </form>
  );
}

function Keys() {
  const client = useQueryClient();
  const keys = useQuery({
    queryKey: ['keys'],
    queryFn: async () => (await api.get<{ data: { keys: ApiKey[] } }>('/api/keys')).data.keys,
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`/api/keys/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys'] }),
  });
  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {keys.isPending && <Loading what="keys" />}
      <ErrorNote error={keys.error ?? revoke.error} />
      {keys.data && (
        <TableScroll label="API keys">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Permissions</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.permissions.length === PERMISSIONS.length ? 'all' : k.permissions.join(', ')}</td>
                  <td>
                    <Time at={k.created_at} />
                  </td>
                  <td>
                    <Time at={k.last_used_at} />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        if (confirm(`Revoke the key “${k.name}”? Programs using it stop working at once.`))
                          revoke.mutate(k.id);
                      }}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <NewKey />
    </section>
  );
}

const ROLES = ['admin', 'editor', 'viewer'] as const;

function InviteUser() {
  const client = useQueryClient();
  const [draft, setDraft] = useState({ email: '', name: '', role: 'editor' });
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: async () =>
      (await api.post<{ data: { set_password_url: string } }>('/api/users', draft)).data.set_password_url,
    onSuccess: async (url) => {
      setLink(url);
      setDraft({ email: '', name: '', role: 'editor' });
      await client.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const errors =
    invite.error instanceof ApiError ? fieldErrors(invite.error.details, ['email', 'name', 'role']).byField : {};
  return (
    <form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        setLink(null);
        invite.mutate();
      }}
    >
      <h3>Invite a user</h3>
      <div className="row3">
        <Field label="E-mail" error={errors.email}>
          {(p) => (
            <input
              {...p}
              type="email"
              value={draft.email}
              onChange={(e) => setDraft({ ...draft, email: e.target.value })}
            />
          )}
        </Field>
        <Field label="Name" error={errors.name}>
          {(p) => <input {...p} value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />}
        </Field>
        <Field label="Role" error={errors.role}>
          {(p) => (
            <select {...p} value={draft.role} onChange={(e) => setDraft({ ...draft, role: e.target.value })}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {invite.error && !(invite.error instanceof ApiError && invite.error.details.length > 0) && (
        <ErrorNote error={invite.error} />
      )}
      <button className="primary" type="submit" disabled={invite.isPending}>
        Invite
      </button>
      {link && (
        <div className="note ok" role="status">
          <p>Send this link to the new user; it lets them choose a password once.</p>
          <code className="secret">{link}</code> <CopyButton text={link} />
        </div>
      )}
    </form>
  );
}

function Users({ me }: { me: Me }) {
  const client = useQueryClient();
  const users = useQuery({
    queryKey: ['users'],
    queryFn: async () => (await api.get<{ data: { users: User[] } }>('/api/users')).data.users,
  });
  const change = useMutation({
    mutationFn: ({ id, role }: { id: string; role: string }) => api.put(`/api/users/${id}`, { role }),
    onSettled: () => client.invalidateQueries({ queryKey: ['users'] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.delete(`/api/users/${id}`),
    onSettled: () => client.invalidateQueries({ queryKey: ['users'] }),
  });
  return (
    <section className="card" aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {users.isPending && <Loading what="users" />}
      <ErrorNote error={users.error ?? change.error ?? remove.error} />
      {users.data && (
        <TableScroll label="Users">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id}>
                  <td>{u.name}</td>
                  <td>{u.email}</td>
                  <td>
                    {u.id === me.user.id ? (
                      u.role
                    ) : (
                      <select
                        aria-label={`Role of ${u.name}`}
                        value={u.role}
                        onChange={(e) => change.mutate({ id: u.id, role: e.target.value })}
                      >
                        {ROLES.map((r) => (
                          <option key={r}>{r}</option>
                        ))}
                      </select>
                    )}
                  </td>
                  <td>
                    <Time at={u.last_login_at} />
                  </td>
                  <td>
                    {u.id !== me.user.id && (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          if (confirm(`Remove ${u.name} (${u.email})? They are signed out at once.`))
                            remove.mutate(u.id);
                        }}
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <InviteUser />
    </section>
  );
}

/** Account settings: subscription, API keys, users (admins). */
export function SettingsPage({ me }: { me: Me }) {
  const account = useAccount();
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <ErrorNote error={account.error} />
        {account.data && (
          <dl className="facts">
            <div>
              <dt>Name</dt>
              <dd>{account.data.name}</dd>
            </div>
            <div>
              <dt>Subscription</dt>
              <dd>{account.data.subscription_status}</dd>
            </div>
            <div>
              <dt>Monitors</dt>
              <dd>{account.data.monitors_count}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Time at={account.data.created_at} />
              </dd>
            </div>
          </dl>
        )}
      </section>
      {me.user.role === 'admin' && <Keys />}
      {me.user.role === 'admin' && <Users me={me} />}
    </section>
  );
}
