// The signed-in frame: a skip link, the navigation, sign out, and the page the path names.
import { useContext, useEffect, useRef } from 'preact/hooks';
import { SessionContext } from './auth/client-context.ts';
import { Link, useLocation } from './router.tsx';
import { resolveRoute } from './routes.tsx';

const SECTIONS = [
  { to: '/', label: 'Overview' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/agents', label: 'Agents' },
  { to: '/tool-servers', label: 'Tool servers' },
  { to: '/usage', label: 'Usage' },
  { to: '/keys', label: 'Keys' },
  { to: '/secrets', label: 'Secrets' },
  { to: '/webhooks', label: 'Webhooks' },
];

/** The section a path is in: the overview only at the root, the others by their prefix (a session, an eval are an agent's). */
function isCurrent(section: string, path: string): boolean {
  if (section === '/') return path === '/';
  if (section === '/agents')
    return path.startsWith('/agents') || path.startsWith('/sessions') || path.startsWith('/deploy') || path.startsWith('/evals');
  return path.startsWith(section);
}

export function Shell() {
  const session = useContext(SessionContext)!;
  const location = useLocation();
  const route = resolveRoute(location);
  useEffect(() => {
    document.title = `${route.title} · Agent service`;
  }, [route.title]);
  // After a navigation in the page, the focus moves to the new content (as a page load would put a
  // screen reader at its start); the first render leaves it where the browser put it.
  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(location.path);
  useEffect(() => {
    if (location.path !== firstPath.current) {
      firstPath.current = '';
      main.current?.focus({ preventScroll: true });
    }
  }, [location.path]);
  return (
    <>
      <a class="skip-link" href="#content">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Agent service</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.to}>
                <Link to={section.to} aria-current={isCurrent(section.to, location.path) ? 'page' : undefined}>
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="secondary" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <main id="content" tabIndex={-1} ref={main}>
        {route.render()}
      </main>
    </>
  );
}
