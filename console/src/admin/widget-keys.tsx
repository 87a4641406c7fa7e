/** Widget keys: list (prefix, agent, origins, state), create for a customer-facing agent (the key is shown once), revoke. */
import { useState } from 'preact/hooks';
import type { ScreenProps } from './admin-view.tsx';

const splitList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function WidgetKeys({ org }: ScreenProps) {
  const agents = org.config.document.agents.filter((a) => a.customer_facing);
  const [name, setName] = useState('');
  const [agent, setAgent] = useState('');
  const [origins, setOrigins] = useState('');
  const chosen = agent || agents[0]?.name || '';
  return (
    <section aria-labelledby="widget-keys-heading">
      <h3 id="widget-keys-heading">Widget keys</h3>
      <div class="table-wrap">
        <table class="events widget-keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Agent</th>
              <th scope="col">Origins</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {org.config.widget_keys.map((k) => (
              <tr key={k.id} data-widget-key={k.name}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.agent}</td>
                <td>{k.origins.join(' ')}</td>
                <td>
                  {k.revoked ? (
                    'revoked'
                  ) : (
                    <button
                      type="button"
                      class="danger"
                      disabled={org.busy}
                      aria-label={`Revoke widget key ${k.name}`}
                      onClick={() =>
                        void org.apply({
                          widget_keys: [{ name: k.name, agent: k.agent, origins: k.origins, revoked: true }],
                        })
                      }
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
      <h4>New widget key</h4>
      {agents.length === 0 ? (
        <p class="note">A widget key needs a customer-facing agent: mark one as customer-facing under Agents.</p>
      ) : (
        <form
          class="form inline"
          onSubmit={(e) => {
            e.preventDefault();
            void org
              .apply({ widget_keys: [{ name: name.trim(), agent: chosen, origins: splitList(origins) }] })
              .then((ok) => ok && (setName(''), setOrigins('')));
          }}
        >
          <label>
            Key name
            <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Customer-facing agent
            <select value={chosen} onChange={(e) => setAgent(e.currentTarget.value)}>
              {agents.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
          <label class="grow">
            Allowed origins
            <input
              required
              value={origins}
              placeholder="https://shop.example.com"
              onInput={(e) => setOrigins(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={org.busy}>
            Create widget key
          </button>
        </form>
      )}
    </section>
  );
}
