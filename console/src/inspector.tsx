/**
 * The run inspector: a run's stored events, a page at a time, each with a readable line (tool calls,
 * built-in or a tool server's, and tool-server status), and a link to its workflow in the Temporal Web UI.
 * A run is opened by its id alone: its agent (which the events route acts through) comes from GET /api/runs?run_id.
 */
import type { RunEventRecord, RunListItem } from '@agent-run/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { consoleConfig } from './config.ts';
import { eventSummary, type EventLike } from './event-summary.ts';
import { RunControls } from './run-controls.tsx';
import { runStatusLabel } from './run-status.ts';
import { errorText, type Session } from './session.ts';

const PAGE = 50;

export function InspectorView({ session, runId: initialRun }: { session: Session; runId: string }) {
  const [runId, setRunId] = useState(initialRun);
  const [run, setRun] = useState<RunListItem>();
  const [records, setRecords] = useState<RunEventRecord[]>([]);
  /** Whether the first page has been read: until then "Events (0)" would be a lie. */
  const [loaded, setLoaded] = useState(false);
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
      setLoaded(true);
    } catch (err) {
      setError(errorText(err));
    }
  };

  useEffect(() => {
    setRecords([]);
    setRun(undefined);
    setLoaded(false);
    setError(undefined);
    setTemporalUrl(undefined);
    if (!initialRun) return;
    const abort = new AbortController();
    const open = async () => {
      const found = await session.client.runs.list({ run_id: initialRun, limit: 1, signal: abort.signal });
      const item = found.runs[0];
      if (!item) throw new Error(`No run ${initialRun} that you may see`);
      setRun(item);
      pages.current = session
        .forAgent(item.agent_id)
        .runs.events(item.run_id, { limit: PAGE, follow: false, signal: abort.signal })
        [Symbol.asyncIterator]();
      await loadPage();
      const c = await consoleConfig();
      setTemporalUrl(`${c.temporal_workflows_url}/${encodeURIComponent(item.run_id)}`);
    };
    open().catch((err: unknown) => abort.signal.aborted || setError(errorText(err)));
    return () => abort.abort();
  }, [session, initialRun]);

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
          // The view is keyed by the hash's run: a new id opens it afresh.
          location.hash = `#/inspect/${encodeURIComponent(runId.trim())}`;
        }}
      >
        <label>
          Run id
          <input value={runId} required onInput={(e) => setRunId(e.currentTarget.value)} />
        </label>
        <button type="submit">Show events</button>
      </form>
      {run && (
        <p class="meta" data-testid="run-summary">
          <span class={`badge status-${run.status}`}>{runStatusLabel(run.status)}</span> {run.agent_name} ·{' '}
          {run.task_title || run.task_id} · started {new Date(run.started_at).toLocaleString()}
        </p>
      )}
      {run && (
        <RunControls
          client={session.forAgent(run.agent_id)}
          taskId={run.task_id}
          runId={run.run_id}
          status={run.status}
          waiting={run.needs_you}
          onChanged={() =>
            void session.client.runs.list({ run_id: run.run_id, limit: 1 }).then((r) => r.runs[0] && setRun(r.runs[0]))
          }
        />
      )}
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
      {initialRun && !loaded && !error && <p role="status">Loading the run…</p>}
      {loaded && records.length === 0 && <p>This run has no events yet.</p>}
      <table class="events" hidden={!loaded}>
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
