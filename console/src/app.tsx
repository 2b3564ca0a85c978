import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiClient } from './api/api-client.js';
import { forgetToken, keepToken, storedToken } from './api/session.js';
import { AuditScreen } from './audit/audit-screen.js';
import { ClientsScreen } from './clients/clients-screen.js';
import { DataSourcesScreen } from './data-sources/data-sources-screen.js';
import { DefinitionsScreen } from './definitions/definitions-screen.js';
import { DisclosuresScreen } from './disclosures/disclosures-screen.js';
import { ExplainScreen } from './explain/explain-screen.js';
import { InitialAccessTokensScreen } from './initial-access-tokens/initial-access-tokens-screen.js';
import { ServerScreen } from './server/server-screen.js';
import { SignInScreen } from './sign-in/sign-in-screen.js';
import { TicketsScreen } from './tickets/tickets-screen.js';
import { TrustCommunitiesScreen } from './trust-communities/trust-communities-screen.js';

const SCREENS = [
  { path: 'server', title: 'Authorization server', Screen: ServerScreen },
  { path: 'definitions', title: 'Resource definitions', Screen: DefinitionsScreen },
  { path: 'data-sources', title: 'Data sources', Screen: DataSourcesScreen },
  { path: 'clients', title: 'Clients', Screen: ClientsScreen },
  { path: 'initial-access-tokens', title: 'Initial access tokens', Screen: InitialAccessTokensScreen },
  { path: 'trust-communities', title: 'Trust communities', Screen: TrustCommunitiesScreen },
  { path: 'tickets', title: 'Consent tickets', Screen: TicketsScreen },
  { path: 'explain', title: 'Explain', Screen: ExplainScreen },
  { path: 'audit', title: 'Audit trail', Screen: AuditScreen },
  { path: 'disclosures', title: 'Disclosures', Screen: DisclosuresScreen },
] as const;

/** The screen the URL's fragment names, and what follows it (`#/audit/412`). */
function currentRoute(): { path: string; param?: string } {
  const [path, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  if (!SCREENS.some((screen) => screen.path === path)) return { path: 'server' };
  return { path, param: rest.length > 0 ? rest.join('/') : undefined };
}

/** Signed out: the sign-in. Signed in: the navigation and one screen, chosen by the URL's fragment. */
export function App() {
  const [token, setToken] = useState(storedToken());
  const [notice, setNotice] = useState<string>();
  const [route, setRoute] = useState(currentRoute());
  const path = route.path;

  useEffect(() => {
    const follow = () => setRoute(currentRoute());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  const signOut = (message: string) => {
    forgetToken();
    setToken(undefined);
    setNotice(message);
  };
  const api = useMemo(() => token && new ApiClient(token, () => signOut('The server refused the admin token: sign in again.')), [token]);
  const screen = SCREENS.find((candidate) => candidate.path === path)!;
  useEffect(() => {
    document.title = api ? `${screen.title} · Authorization server console` : 'Sign in · Authorization server console';
  }, [api, screen]);
  // After a move to another screen, keyboard and screen-reader users start at its content.
  const [moved, setMoved] = useState(false);
  useEffect(() => {
    if (moved) document.getElementById('main')?.focus();
    setMoved(true);
  }, [path, route.param]);

  if (!api) {
    return (
      <SignInScreen
        notice={notice}
        onSignedIn={(value) => {
          keepToken(value);
          setNotice(undefined);
          setToken(value);
        }}
      />
    );
  }
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to the screen
      </a>
      <header class="top">
        <p class="brand">Authorization server console</p>
        <nav aria-label="Console sections">
          <ul>
            {SCREENS.map((item) => (
              <li key={item.path}>
                <a href={`#/${item.path}`} aria-current={item.path === path ? 'page' : undefined}>
                  {item.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="secondary" onClick={() => signOut('You are signed out. The admin token was forgotten.')}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <h1>{screen.title}</h1>
        <screen.Screen api={api} param={route.param} key={`${path}/${route.param ?? ''}`} />
      </main>
    </>
  );
}
