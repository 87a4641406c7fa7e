/** The org's secrets: set (create or replace) and delete. Values are write-only: the list has names and dates, never a value. */
import type { OrgSecret } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
import { errorText, type Session } from '../session.ts';

export function Secrets({ session }: { session: Session }) {
  const admin = session.client.admin;
  const [secrets, setSecrets] = useState<OrgSecret[]>([]);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [version, setVersion] = useState(0);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  useEffect(() => {
    admin.listSecrets().then(
      (list) => (setSecrets(list.secrets), setError(undefined)),
      (err) => setError(errorText(err)),
    );
  }, [admin, version]);
  const act = (call: () => Promise<unknown>, done: string) =>
    call().then(
      () => (setNotice(done), setError(undefined), setVersion((v) => v + 1)),
      (err) => (setError(errorText(err)), setNotice(undefined)),
    );
  return (
    <section aria-labelledby="secrets-heading">
      <h3 id="secrets-heading">Secrets</h3>
      <p class="note">
        Credentials agents use (a tool server's token, a bot token), named in settings as{' '}
        <code>{'{"secret": "NAME"}'}</code>. A value is sealed when set and never shown again; setting a name again
        replaces it.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      <form
        class="form inline"
        aria-label="Set a secret"
        onSubmit={(e) => {
          e.preventDefault();
          const n = name.trim();
          // The value leaves the page's state as soon as it is sent.
          void act(() => admin.setSecret(n, value), `Secret ${n} set. Its value is not shown again.`).then(() =>
            setValue(''),
          );
        }}
      >
        <label>
          Secret name
          <input
            required
            pattern="[A-Za-z][A-Za-z0-9_.\-]{0,63}"
            title="starts with a letter; letters, digits, _ . -"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label class="grow">
          Secret value
          <input
            type="password"
            required
            autocomplete="off"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Set secret</button>
      </form>
      <div class="table-wrap">
        <table class="events secrets">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {secrets.map((s) => (
              <tr key={s.name} data-secret={s.name}>
                <td>
                  <code>{s.name}</code>
                </td>
                <td>{new Date(s.updated_at).toLocaleString()}</td>
                <td>
                  <div class="buttons">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Replace secret ${s.name}`}
                      onClick={() => setName(s.name)}
                    >
                      Replace
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete secret ${s.name}`}
                      onClick={() => void act(() => admin.deleteSecret(s.name), `Secret ${s.name} deleted.`)}
                    >
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {secrets.length === 0 && <p class="note">No secrets yet.</p>}
    </section>
  );
}
