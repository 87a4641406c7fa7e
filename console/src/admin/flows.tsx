/** Flows: list (kind, agent, enabled, inbound URL), create and edit each kind, enable or disable. Apply never deletes a flow. */
import { useState } from 'preact/hooks';
import type { ScreenProps } from './admin-view.tsx';
import { FlowForm } from './flow-form.tsx';

export function Flows(props: ScreenProps) {
  const { org } = props;
  const [editing, setEditing] = useState<string>();
  const specs = org.config.document.flows;
  return (
    <section aria-labelledby="flows-heading">
      <h3 id="flows-heading">Flows</h3>
      <div class="table-wrap">
        <table class="events flows">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Agent</th>
              <th scope="col">State</th>
              <th scope="col">Inbound URL</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {org.config.flows.map((f) => {
              const spec = specs.find((s) => s.name === f.name)!;
              return (
                <tr key={f.id} data-flow={f.name}>
                  <td>{f.name}</td>
                  <td>{f.kind}</td>
                  <td>{spec.agent}</td>
                  <td>{f.enabled ? 'enabled' : 'disabled'}</td>
                  <td class="url">{f.path ? <code>{location.origin + f.path}</code> : '—'}</td>
                  <td>
                    <div class="buttons">
                      <button
                        type="button"
                        class="secondary"
                        disabled={org.busy}
                        aria-label={`${f.enabled ? 'Disable' : 'Enable'} flow ${f.name}`}
                        onClick={() => void org.apply({ flows: [{ ...spec, enabled: !f.enabled }] })}
                      >
                        {f.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Edit flow ${f.name}`}
                        onClick={() => setEditing(f.name)}
                      >
                        Edit
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {editing === undefined ? (
        <button type="button" onClick={() => setEditing('')}>
          New flow
        </button>
      ) : (
        <FlowForm
          key={editing}
          {...props}
          flow={specs.find((s) => s.name === editing)}
          onDone={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}
