/**
 * The run inspector: a run's stored events, a page at a time, each with a readable line (tool calls,
 * built-in or a tool server's, and tool-server status), and a link to its workflow in the Temporal Web UI.
 */
import type { RunEventRecord } from '@agent-run/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { consoleConfig } from './config.ts';
import { eventSummary, type EventLike } from './event-summary.ts';
import { errorText, savedAgentId, type Session } from './session.ts';

const PAGE = 50;

export function InspectorView({ session, runId: initialRun }: { session: Session; runId: string }) {
  const [agentId, setAgentId] = useState(savedAgentId());
  const [runId, setRunId] = useState(initialRun);
  const [shown, setShown] = useState({ runId: initialRun, agentId });
  const [records, setRecords] = useState<RunEventRecord[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string>();
  const [temporalUrl, setTemporalUrl] = useState<string>();
  const pages = useRef<AsyncIterator<RunEventRecord>>(undefined);

  const loadPage = async () => {
    const iterator = pages.current;
    if (!iterator) return;
    const page: RunEventRecord[] = [];
    try {
      while (page.length < PAGE) {
        const next = await iterator.next();
        if (next.done) break;
        page.push(next.value);
      }
      setMore(page.length === PAGE);
      setRecords((r) => [...r, ...page]);
    } catch (err) {
      setError(errorText(err));
    }
  };

  useEffect(() => {
    setRecords([]);
    setError(undefined);
    if (!shown.runId || !shown.agentId) return;
    const abort = new AbortController();
    pages.current = session
      .forAgent(shown.agentId)
      .runs.events(shown.runId, { limit: PAGE, follow: false, signal: abort.signal })
      [Symbol.asyncIterator]();
    void loadPage();
    void consoleConfig().then((c) => setTemporalUrl(`${c.temporal_workflows_url}/${encodeURIComponent(shown.runId)}`));
    return () => abort.abort();
  }, [session, shown]);

  // Results and arguments carry only the call's id: the name comes from its TOOL_CALL_START.
  const toolNames = new Map<string, string>();
  const summaries = records.map((r) => {
    const event = r.payload as unknown as EventLike;
    if (event.type === 'TOOL_CALL_START') toolNames.set(String(event.tool_call_id), String(event.tool_call_name));
    return eventSummary(event, toolNames);
  });

  return (
    <main class="inspector">
      <h2>Run inspector</h2>
      <form
        class="form inline"
        onSubmit={(e) => {
          e.preventDefault();
          location.hash = `#/inspect/${runId.trim()}`;
          setShown({ runId: runId.trim(), agentId: agentId.trim() });
        }}
      >
        <label>
          Agent id
          <input value={agentId} required onInput={(e) => setAgentId(e.currentTarget.value)} />
        </label>
        <label>
          Run id
          <input value={runId} required onInput={(e) => setRunId(e.currentTarget.value)} />
        </label>
        <button type="submit">Show events</button>
      </form>
      {temporalUrl && (
        <p>
          <a href={temporalUrl} target="_blank" rel="noopener noreferrer">
            Open the workflow in the Temporal Web UI
          </a>
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
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
          {records.map((r, i) => (
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
      {more && (
        <button type="button" onClick={() => void loadPage()}>
          Load more events
        </button>
      )}
    </main>
  );
}
