/** API keys of the org's members: create (the key is shown once), revoke. */
import type { ApiKey, CreatedApiKey, Member } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
import { errorText, type Session } from '../session.ts';

export function ApiKeys({ session }: { session: Session }) {
  const admin = session.client.admin;
  const [members, setMembers] = useState<Member[]>([]);
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<CreatedApiKey>();
  const [version, setVersion] = useState(0);
  const [userId, setUserId] = useState(session.identity.user_id);
  const [name, setName] = useState('');
  useEffect(() => {
    Promise.all([admin.listMembers(), admin.listApiKeys()]).then(
      ([m, k]) => (setMembers(m.members), setKeys(k.keys), setError(undefined)),
      (err) => setError(errorText(err)),
    );
  }, [admin, version]);
  const email = (id: string) => members.find((m) => m.id === id)?.email ?? id;
  const act = (call: () => Promise<unknown>) =>
    call().then(
      () => setVersion((v) => v + 1),
      (err) => setError(errorText(err)),
    );
  return (
    <>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <section aria-labelledby="keys-heading">
        <h3 id="keys-heading">API keys</h3>
        <form
          class="form inline"
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => setCreated(await admin.createApiKey({ userId, name: name.trim() })));
          }}
        >
          <label>
            For member
            <select value={userId} onChange={(e) => setUserId(e.currentTarget.value)}>
              {members.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.email}
                </option>
              ))}
            </select>
          </label>
          <label>
            Key name
            <input value={name} required onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit">Create key</button>
        </form>
        {created && (
          <div class="card" role="status">
            <p>New key for {email(created.user_id)}. Copy it now: it is not shown again.</p>
            <output class="new-key" aria-label="New API key">
              {created.key}
            </output>
          </div>
        )}
        <div class="table-wrap">
          <table class="events keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Member</th>
                <th scope="col">Prefix</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td>{k.name || '—'}</td>
                  <td>{email(k.user_id)}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'never'}</td>
                  <td>
                    {k.revoked_at ? (
                      'revoked'
                    ) : (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Revoke key ${k.name || k.prefix}`}
                        onClick={() => void act(() => admin.revokeApiKey(k.id))}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
