/** The sign-in form: an API key, sent once to start the console session (the page keeps no key). */
import { useEffect, useState } from 'preact/hooks';
import { consoleConfig } from './config.ts';
import { errorText, signIn, type OnSessionEnded, type Session } from './session.ts';

export function SignIn({ onSession, onEnded }: { onSession(session: Session): void; onEnded: OnSessionEnded }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [demoKeyHint, setDemoKeyHint] = useState<string>();
  useEffect(() => {
    consoleConfig().then(
      (c) => setDemoKeyHint(c.demo_key_hint),
      () => {},
    );
  }, []);
  return (
    <main class="sign-in">
      <h1>Agent Run Console</h1>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          signIn(key.trim(), onEnded).then(onSession, (err) => (setError(errorText(err)), setBusy(false)));
        }}
      >
        <label>
          API key
          <input
            type="password"
            autocomplete="off"
            value={key}
            required
            placeholder="ars_live_…"
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <p class="note">
          {demoKeyHint
            ? `Trying it out? The demo key is in ${demoKeyHint}.`
            : 'No key yet? An owner or admin of your organization creates one (Admin → API keys, or `npm run admin -- key create`).'}
        </p>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
