import { useQueryClient } from '@tanstack/react-query';
import { useLiveStatus } from './lib/live.ts';
import { useEffect, useState, type ReactNode } from 'react';
import { ErrorNote, Loading } from './components/common.tsx';
import { request, setCsrfToken, setUnauthorizedHandler } from './lib/api.ts';
import { Link, matchPath, navigate, Redirect, useLocation } from './lib/router.tsx';
import { useMe, type Me } from './lib/session.ts';
import { applyTheme, storedTheme, type ThemeChoice } from './lib/theme.ts';
import { AuthPage } from './pages/auth.tsx';
import { ContactsPage } from './pages/contacts.tsx';
import { IncidentPage, IncidentsPage } from './pages/incidents.tsx';
import { MaintenancePage } from './pages/maintenance.tsx';
import { RegionsPage } from './pages/regions.tsx';
import { MonitorDetail } from './pages/monitor-detail.tsx';
import { MonitorForm } from './pages/monitor-form.tsx';
import { Overview } from './pages/overview.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { StatusPagesPage } from './pages/status-pages.tsx';

const NAV = [
  { href: '/monitors', label: 'Monitors', match: ['/', '/monitors'] },
  { href: '/incidents', label: 'Incidents', match: ['/incidents'] },
  { href: '/contacts', label: 'Contacts', match: ['/contacts'] },
  { href: '/status-pages', label: 'Status pages', match: ['/status-pages'] },
  { href: '/maintenance', label: 'Maintenance', match: ['/maintenance'] },
  { href: '/regions', label: 'Regions', match: ['/regions'] },
  { href: '/settings', label: 'Settings', match: ['/settings'] },
];

/** The page of a path (signed in); null for an unknown one. */
function page(path: string, me: Me): { title: string; node: ReactNode } | null {
  const table: [string, string, (p: Record<string, string>) => ReactNode][] = [
    ['/', 'Monitors', () => <Overview />],
    ['/monitors', 'Monitors', () => <Overview />],
    ['/monitors/new', 'New monitor', () => <MonitorForm />],
    ['/monitors/:id', 'Monitor', (p) => <MonitorDetail id={p.id!} />],
    ['/monitors/:id/edit', 'Edit monitor', (p) => <MonitorForm id={p.id} />],
    ['/incidents', 'Incidents', () => <IncidentsPage />],
    ['/incidents/:id', 'Incident', (p) => <IncidentPage id={p.id!} />],
    ['/contacts', 'Contacts', () => <ContactsPage />],
    ['/contacts/new', 'New contact', () => <ContactsPage creating />],
    ['/contacts/:id', 'Contact', (p) => <ContactsPage id={p.id} />],
    ['/status-pages', 'Status pages', () => <StatusPagesPage />],
    ['/status-pages/new', 'New status page', () => <StatusPagesPage creating />],
    ['/status-pages/:id', 'Status page', (p) => <StatusPagesPage id={p.id} />],
    ['/maintenance', 'Maintenance', () => <MaintenancePage />],
    ['/maintenance/new', 'New maintenance window', () => <MaintenancePage creating />],
    ['/maintenance/:id', 'Maintenance window', (p) => <MaintenancePage id={p.id} />],
    ['/regions', 'Regions', () => <RegionsPage />],
    ['/settings', 'Settings', () => <SettingsPage me={me} />],
  ];
  for (const [pattern, title, render] of table) {
    const params = matchPath(pattern, path);
    if (params) return { title, node: render(params) };
  }
  return null;
}

function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme());
  const next: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
  const names: Record<ThemeChoice, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };
  return (
    <button
      type="button"
      className="ghost"
      onClick={() => {
        applyTheme(next[choice]);
        setChoice(next[choice]);
      }}
      title={`Colour theme: ${choice === 'system' ? "the system's" : choice}. Change to ${next[choice]}.`}
    >
      {names[choice]}
    </button>
  );
}

function Layout({ me, title, children }: { me: Me; title: string; children: ReactNode }) {
  const { path } = useLocation();
  const client = useQueryClient();
  const [menu, setMenu] = useState(false);
  useLiveStatus();
  useEffect(() => {
    document.title = `${title} · Picket`;
    setMenu(false);
  }, [title, path]);
  const signOut = async () => {
    await request('POST', '/auth/logout', {}).catch(() => undefined);
    setCsrfToken(null);
    client.clear();
    navigate('/login', { replace: true });
  };
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link className="brand" href="/monitors">
          <span className="logo" aria-hidden="true">
            ◆
          </span>{' '}
          Picket
        </Link>
        <button
          type="button"
          className="ghost menu-button"
          aria-expanded={menu}
          aria-controls="nav"
          onClick={() => setMenu((m) => !m)}
        >
          Menu
        </button>
        <nav id="nav" aria-label="Main" className={menu ? 'open' : ''}>
          <ul>
            {NAV.map((item) => {
              const current = item.match.some((m) => path === m || (m !== '/' && path.startsWith(`${m}/`)));
              return (
                <li key={item.href}>
                  <Link href={item.href} aria-current={current ? 'page' : undefined}>
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
          <div className="who">
            <span className="muted" title={me.user.email}>
              {me.user.name || me.user.email}
            </span>
            <ThemeToggle />
            <button type="button" className="ghost" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

export function App() {
  const { path } = useLocation();
  const me = useMe();
  const client = useQueryClient();
  useEffect(() => {
    setUnauthorizedHandler(() => {
      client.setQueryData(['me'], null);
    });
    return () => setUnauthorizedHandler(null);
  }, [client]);

  if (path === '/login') return <AuthPage kind="login" />;
  if (path === '/setup') return <AuthPage kind="setup" />;
  if (path === '/set-password') return <AuthPage kind="set-password" />;
  if (me.isPending) return <Loading what="Picket" />;
  if (me.isError) return <ErrorNote error={me.error} />;
  if (me.data === null) {
    // Not signed in: the sign-in page.
    return <Redirect to="/login" />;
  }
  const found = page(path, me.data);
  return (
    <Layout me={me.data} title={found?.title ?? 'Not found'}>
      {found?.node ?? (
        <section>
          <h1>Not found</h1>
          <p>
            There is no page here. <Link href="/monitors">Go to the monitors</Link>.
          </p>
        </section>
      )}
    </Layout>
  );
}
