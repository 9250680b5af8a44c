// The console shell: session gate (sign-in, forced password change), the navigation, and the routes. Every page is
// its own chunk, loaded when first visited, so the first load carries only the shell.

import {
  lazy,
  Suspense,
  useEffect,
  useState,
  type ComponentType,
  type FormEvent,
  type LazyExoticComponent,
} from 'react';
import { paths, session } from './api';
import { routeOf } from './lib/base-path';
import { useSession } from './hooks/use-session';
import { ChangePasswordForm } from './pages/change-password-form';
import { LoginPage } from './pages/login-page';
import { Link, navigate, useLocation } from './router';
import { resolvedTheme, setThemeChoice } from './theme';
import { Badge } from './ui/layout';
import { Loading, ToastProvider } from './ui/feedback';
import { Icon } from './ui/icons';

type PageProps = { params: string[] };
type Page = ComponentType<PageProps> & { prefetch: () => Promise<void> };

/**
 * A page in its own chunk. Until the chunk is here the page renders through React.lazy (suspending to the Loading
 * fallback); once it is, the page renders at once. That matters beyond the fetch: React holds newly revealed
 * Suspense content for up to 300 ms after a fallback shows, which every first visit of a lazy page paid. The chunks
 * are fetched once the shell is idle (`prefetchPages`), so moving within the console never waits for one.
 */
function page(load: () => Promise<{ default: ComponentType<PageProps> }>): Page {
  let loaded: ComponentType<PageProps> | undefined;
  const fetchOnce = async (): Promise<{ default: ComponentType<PageProps> }> => {
    const module = await load();
    loaded = module.default;
    return module;
  };
  const Lazy: LazyExoticComponent<ComponentType<PageProps>> = lazy(fetchOnce);
  function PageChunk(props: PageProps) {
    // Chosen once per mounted page: switching from Lazy to the loaded component later would remount the page and
    // lose its state (a page first shown through Lazy stays on it; it no longer suspends once loaded).
    const [Loaded] = useState(() => loaded);
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  }
  return Object.assign(PageChunk, { prefetch: () => fetchOnce().then(() => undefined) });
}

const Dashboard = page(() => import('./pages/dashboard-page'));
const Buckets = page(() => import('./pages/buckets-page'));
const BucketSettings = page(() => import('./pages/bucket-settings-page'));
const Browser = page(() => import('./pages/object-browser-page'));
const Search = page(() => import('./pages/search-page'));
const Keys = page(() => import('./pages/keys-page'));
const KeyDetail = page(() => import('./pages/key-detail-page'));
const Users = page(() => import('./pages/users-page'));
const Audit = page(() => import('./pages/audit-page'));
const Backups = page(() => import('./pages/backups-page'));
const Replication = page(() => import('./pages/replication-page'));
const Notifications = page(() => import('./pages/notifications-page'));
const Integrity = page(() => import('./pages/integrity-page'));
const Account = page(() => import('./pages/account-page'));

const ROUTES: Array<[RegExp, Page, string]> = [
  [/^$/, Dashboard, 'Dashboard'],
  [/^buckets$/, Buckets, 'Buckets'],
  [/^buckets\/([^/]+)$/, BucketSettings, 'Bucket settings'],
  [/^buckets\/([^/]+)\/browse$/, Browser, 'Objects'],
  [/^search$/, Search, 'Search'],
  [/^keys$/, Keys, 'Access keys'],
  [/^keys\/([^/]+)$/, KeyDetail, 'Access key'],
  [/^users$/, Users, 'Users'],
  [/^audit$/, Audit, 'Audit log'],
  [/^backups$/, Backups, 'Backups'],
  [/^replication$/, Replication, 'Replication'],
  [/^notifications$/, Notifications, 'Notifications'],
  [/^integrity$/, Integrity, 'Integrity'],
  [/^account$/, Account, 'Account'],
];

const NAV: Array<[string, string]> = [
  ['', 'Dashboard'],
  ['buckets', 'Buckets'],
  ['search', 'Search'],
  ['keys', 'Access keys'],
  ['users', 'Users'],
  ['audit', 'Audit log'],
  ['backups', 'Backups'],
  ['replication', 'Replication'],
  ['notifications', 'Notifications'],
  ['integrity', 'Integrity'],
  ['account', 'Account'],
];

function match(route: string): { Page: Page; params: string[]; title: string } | undefined {
  for (const [re, Page, title] of ROUTES) {
    const m = re.exec(route);
    if (m) return { Page, params: m.slice(1).map((p) => decodeURIComponent(p)), title };
  }
  return undefined;
}

function ThemeToggle() {
  const [theme, setTheme] = useState(resolvedTheme());
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="btn btn-ghost icon-only"
      aria-label={`Switch to the ${next} theme`}
      title={`Switch to the ${next} theme`}
      onClick={() => {
        setThemeChoice(next);
        setTheme(next);
      }}
    >
      <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
    </button>
  );
}

function QuickSearch() {
  const [q, setQ] = useState('');
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    navigate(`search?q=${encodeURIComponent(q)}`);
  };
  return (
    <form role="search" className="quick-search" onSubmit={submit}>
      <label htmlFor="quick-search" className="visually-hidden">
        Search objects in every bucket
      </label>
      <input
        id="quick-search"
        className="input"
        type="search"
        placeholder="Search objects…"
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      <button type="submit" className="btn btn-ghost icon-only" aria-label="Search">
        <Icon name="search" />
      </button>
    </form>
  );
}

/**
 * The chunk of the page the console was opened on, fetched before the first render (main.tsx), so that page does not
 * suspend either. Never rejects: a chunk that fails to load is fetched again, and reported, by the page itself.
 */
export function prefetchOpeningPage(): Promise<void> {
  const found = match(routeOf(location.pathname, paths.consoleBase));
  return found ? found.Page.prefetch().catch(() => undefined) : Promise.resolve();
}

/** Fetches every page's chunk, one after another, once the signed-in shell has shown (see `page`). */
function prefetchPages(): void {
  const pages = [...new Set(ROUTES.map(([, Page]) => Page))];
  void pages.reduce<Promise<void>>((done, p) => done.then(p.prefetch).catch(() => undefined), Promise.resolve());
}

function Shell() {
  const { me } = useSession();
  const { route } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const found = match(route);
  const section = route.split('/')[0] ?? '';
  useEffect(() => {
    // After the first page's own data has been asked for: its requests go first.
    const idle = setTimeout(prefetchPages, 1000);
    return () => clearTimeout(idle);
  }, []);
  useEffect(() => {
    document.title = `${found?.title ?? 'Not found'} · Store console`;
    setMenuOpen(false);
  }, [route, found?.title]);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="btn btn-ghost icon-only menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="nav"
          aria-label="Menu"
          onClick={() => setMenuOpen((o) => !o)}
        >
          <Icon name="menu" />
        </button>
        <Link to="" className="brand">
          Store
        </Link>
        <QuickSearch />
        <div className="topbar-end">
          <ThemeToggle />
          <span className="whoami">
            {me?.username}
            <Badge tone={me?.role === 'read-only' ? 'info' : 'neutral'}>
              {me?.role === 'read-only' ? 'read-only' : 'full admin'}
            </Badge>
          </span>
          <button type="button" className="btn btn-ghost" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" className={`nav${menuOpen ? ' nav-open' : ''}`} aria-label="Main">
        <ul>
          {NAV.map(([to, label]) => (
            <li key={to}>
              <Link to={to} aria-current={section === to.split('/')[0] ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        {me?.role === 'read-only' ? (
          <p className="note note-info read-only-banner">
            You are signed in as a read-only admin: you can see everything and change nothing.
          </p>
        ) : null}
        <Suspense fallback={<Loading />}>
          {found ? <found.Page key={route} params={found.params} /> : <NotFound />}
        </Suspense>
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <div className="card">
      <h1>Page not found</h1>
      <p>
        There is no console page here. <Link to="">Go to the dashboard</Link>.
      </p>
    </div>
  );
}

function Gate() {
  const s = useSession();
  useEffect(() => {
    void session.start();
  }, []);
  if (s.state === 'loading') return <Loading label="Starting the console…" />;
  if (s.state === 'signed-out') return <LoginPage notice={s.notice} />;
  if (s.me?.mustChangePassword) {
    return (
      <main className="auth-page" id="main">
        <div className="auth-card">
          <h1>Choose a new password</h1>
          <p>Your password was set by an administrator. Choose your own before you continue.</p>
          <ChangePasswordForm onDone={() => void session.loadMe()} />
          <button type="button" className="btn btn-ghost" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </main>
    );
  }
  return <Shell />;
}

export function App() {
  return (
    <ToastProvider>
      <Gate />
    </ToastProvider>
  );
}
