/** Outbound webhooks: list, create (the signing secret is shown once), enable or disable. Apply never deletes one. */
import type { OrgDocument } from '@agent-run/client';
import { useState } from 'preact/hooks';
import type { ScreenProps } from './admin-view.tsx';
import { Checklist } from './checklist.tsx';

type EventType = NonNullable<OrgDocument['webhooks'][number]['events']>[number];
const EVENTS: EventType[] = [
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.awaiting_input',
  'approval.requested',
];

export function Webhooks({ org }: ScreenProps) {
  const hooks = org.config.document.webhooks;
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [agent, setAgent] = useState('');
  const [events, setEvents] = useState<string[]>(EVENTS);
  return (
    <section aria-labelledby="webhooks-heading">
      <h3 id="webhooks-heading">Outbound webhooks</h3>
      <div class="table-wrap">
        <table class="events webhooks">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">Agent</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {hooks.map((h) => (
              <tr key={h.name} data-webhook={h.name}>
                <td>{h.name}</td>
                <td class="url">
                  <code>{h.url}</code>
                </td>
                <td>{h.agent ?? 'every agent'}</td>
                <td>{h.events?.join(', ')}</td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    disabled={org.busy}
                    aria-label={`${h.disabled ? 'Enable' : 'Disable'} webhook ${h.name}`}
                    onClick={() => void org.apply({ webhooks: [{ ...h, disabled: !h.disabled }] })}
                  >
                    {h.disabled ? 'Enable' : 'Disable'}
                  </button>{' '}
                  {h.disabled ? 'disabled' : 'enabled'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h4>New webhook</h4>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          const spec = {
            name: name.trim(),
            url: url.trim(),
            ...(agent ? { agent } : {}),
            ...(events.length < EVENTS.length ? { events: events as EventType[] } : {}),
          };
          void org.apply({ webhooks: [spec] }).then((ok) => ok && (setName(''), setUrl('')));
        }}
      >
        <div class="form inline">
          <label>
            Webhook name
            <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label class="grow">
            Receiver URL
            <input
              type="url"
              required
              value={url}
              placeholder="https://example.com/hooks/runs"
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
          </label>
          <label>
            Runs of
            <select value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
              <option value="">every agent</option>
              {org.config.document.agents.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        <Checklist legend="Events" prefix="Event" items={EVENTS} checked={events} onChange={setEvents} />
        <div class="buttons">
          <button type="submit" disabled={org.busy || events.length === 0}>
            Create webhook
          </button>
        </div>
      </form>
    </section>
  );
}
