/** The console's shell: sign-in, then the screens by URL hash (#/chat, #/runs, #/approvals, #/inspect/<run_id>, #/admin/<screen>). */
import { useEffect, useState } from 'preact/hooks';
import { AdminView } from './admin/admin-view.tsx';
import { ApprovalsView } from './approvals.tsx';
import { ChatView } from './chat/chat-view.tsx';
import { InspectorView } from './inspector.tsx';
import { RunsView } from './runs.tsx';
import { errorText, isAdmin, mayHaveSession, restoreSession, signOut, type Session } from './session.ts';
import { SignIn } from './sign-in.tsx';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

export function App() {
  const [session, setSession] = useState<Session>();
  const [restoring, setRestoring] = useState(mayHaveSession);
  const [error, setError] = useState<string>();
  const hash = useHash();
  // A session that can no longer renew its token: back to the sign-in form, saying why.
  const ended = (why: string) => (setSession(undefined), setError(why));
  // A reload (or another tab) continues the browser's session, if it has one.
  useEffect(() => {
    if (restoring)
      restoreSession(ended)
        .then(setSession, (err) => setError(errorText(err)))
        .finally(() => setRestoring(false));
  }, []);
  if (restoring) return <p role="status">Signing in…</p>;
  if (!session)
    return (
      <>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <SignIn onSession={(s) => (setError(undefined), setSession(s))} onEnded={ended} />
      </>
    );
  const [, screen = 'chat', arg = ''] = hash.split('/');
  const guest = session.identity.role === 'guest';
  const admin = isAdmin(session.identity);
  return (
    <div class="shell">
      <header>
        <strong>Agent Run Console</strong>
        <nav aria-label="Screens">
          <a href="#/chat" aria-current={screen === 'chat' ? 'page' : undefined}>
            Chat
          </a>
          <a href="#/runs" aria-current={screen === 'runs' ? 'page' : undefined}>
            Runs
          </a>
          {!guest && (
            <a href="#/approvals" aria-current={screen === 'approvals' ? 'page' : undefined}>
              Approvals
            </a>
          )}
          <a href="#/inspect" aria-current={screen === 'inspect' ? 'page' : undefined}>
            Inspector
          </a>
          {admin && (
            <a href="#/admin" aria-current={screen === 'admin' ? 'page' : undefined}>
              Admin
            </a>
          )}
        </nav>
        <span class="who" data-testid="role">
          {session.identity.role}
        </span>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setSession(undefined);
            signOut().catch((err: unknown) => setError(errorText(err)));
          }}
        >
          Sign out
        </button>
      </header>
      {screen === 'admin' && admin ? (
        <AdminView session={session} screen={arg} />
      ) : screen === 'runs' ? (
        <RunsView session={session} />
      ) : screen === 'approvals' && !guest ? (
        <ApprovalsView session={session} />
      ) : screen === 'inspect' ? (
        <InspectorView key={arg} session={session} runId={decodeURIComponent(arg)} />
      ) : (
        <ChatView session={session} />
      )}
    </div>
  );
}
