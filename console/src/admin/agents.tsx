/** Agents: list, create, edit (model settings, tools, approvals, customer-facing, access). */
import { useState } from 'preact/hooks';
import type { ScreenProps } from './admin-view.tsx';
import { AgentForm } from './agent-form.tsx';

export function Agents(props: ScreenProps) {
  const { org } = props;
  // undefined: no form; '': a new agent; otherwise the name of the agent being edited.
  const [editing, setEditing] = useState<string>();
  const agents = org.config.document.agents;
  const idOf = (name: string) => org.config.agents.find((a) => a.name === name)?.id;
  return (
    <section aria-labelledby="agents-heading">
      <h3 id="agents-heading">Agents</h3>
      <div class="table-wrap">
        <table class="events agents">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Model</th>
              <th scope="col">Customer-facing</th>
              <th scope="col">Access</th>
              <th scope="col">Id</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.map((a) => (
              <tr key={a.name}>
                <td>{a.name}</td>
                <td>{[a.settings?.provider, a.settings?.model].filter(Boolean).join(' / ') || 'default'}</td>
                <td>{a.customer_facing ? 'yes' : 'no'}</td>
                <td>{a.access?.length ? a.access.join(', ') : '—'}</td>
                <td>
                  <code>{idOf(a.name)}</code>
                </td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Edit agent ${a.name}`}
                    onClick={() => setEditing(a.name)}
                  >
                    Edit
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {editing === undefined ? (
        <button type="button" onClick={() => setEditing('')}>
          New agent
        </button>
      ) : (
        <AgentForm
          key={editing}
          {...props}
          agent={agents.find((a) => a.name === editing)}
          onDone={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}
