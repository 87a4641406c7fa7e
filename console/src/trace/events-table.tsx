/** The run's raw stored events, one row each with a readable line and its payload (the trace is built from these). */
import type { RunEventRecord } from '@agent-run/client';
import { useState } from 'preact/hooks';
import { eventSummary, type EventLike } from '../event-summary.ts';

const SHOWN = 200;

export function EventsTable({ records }: { records: RunEventRecord[] }) {
  const [shown, setShown] = useState(SHOWN);
  // Results and arguments carry only the call's id: the name comes from its TOOL_CALL_START.
  const toolNames = new Map<string, string>();
  const summaries = records.map((r) => {
    const event = r.payload as unknown as EventLike;
    if (event.type === 'TOOL_CALL_START') toolNames.set(String(event.tool_call_id), String(event.tool_call_name));
    return eventSummary(event, toolNames);
  });
  return (
    <>
      <table class="events">
        <caption>Events ({records.length})</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Event</th>
            <th scope="col">Time</th>
            <th scope="col">What happened</th>
            <th scope="col">Payload</th>
          </tr>
        </thead>
        <tbody>
          {records.slice(0, shown).map((r, i) => (
            <tr key={r.id} data-event={r.event_name}>
              <td>{r.id.split(':').pop()}</td>
              <td>{r.event_name}</td>
              <td>{new Date(r.payload.timestamp).toLocaleTimeString()}</td>
              <td class="summary">{summaries[i]}</td>
              <td>
                <details>
                  <summary>payload</summary>
                  <pre>{JSON.stringify(r.payload, null, 2)}</pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {records.length > shown && (
        <button type="button" onClick={() => setShown((n) => n + SHOWN)}>
          Show more events
        </button>
      )}
    </>
  );
}
