/**
 * The run inspector: a run's trace, built from its stored events and followed live while the run goes on,
 * with the raw events a tab away, its controls, and links to its workflow in the Temporal Web UI and to
 * its task's conversation. A run is opened by its id alone: its agent (which the events route acts
 * through) comes from GET /api/runs?run_id.
 */
import type { RunListItem } from '@agent-run/client';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { openInChat } from './chat/use-run.ts';
import { consoleConfig } from './config.ts';
import { RunControls } from './run-controls.tsx';
import { runStatusLabel } from './run-status.ts';
import { errorText, type Session } from './session.ts';
import { EventsTable } from './trace/events-table.tsx';
import { TraceView } from './trace/trace-view.tsx';
import { useRunEvents } from './trace/use-run-events.ts';

export function InspectorView({ session, runId: initialRun }: { session: Session; runId: string }) {
  const [runId, setRunId] = useState(initialRun);
  const [run, setRun] = useState<RunListItem>();
  const [error, setError] = useState<string>();
  const [temporalUrl, setTemporalUrl] = useState<string>();
  const [tab, setTab] = useState<'trace' | 'events'>('trace');
  const client = useMemo(() => run && session.forAgent(run.agent_id), [session, run?.agent_id]);
  const events = useRunEvents(client, run?.run_id ?? '');

  const refresh = (signal?: AbortSignal) =>
    session.client.runs.list({ run_id: initialRun, limit: 1, signal }).then((found) => {
      const item = found.runs[0];
      if (!item) throw new Error(`No run ${initialRun} that you may see`);
      setRun(item);
      return item;
    });

  useEffect(() => {
    setRun(undefined);
    setError(undefined);
    setTemporalUrl(undefined);
    if (!initialRun) return;
    const abort = new AbortController();
    const open = async () => {
      const item = await refresh(abort.signal);
      const c = await consoleConfig();
      setTemporalUrl(`${c.temporal_workflows_url}/${encodeURIComponent(item.run_id)}`);
    };
    open().catch((err: unknown) => abort.signal.aborted || setError(errorText(err)));
    return () => abort.abort();
  }, [session, initialRun]);

  // The run's status as its events tell it: the summary and controls follow it.
  const lastStatus = useMemo(() => {
    for (let i = events.records.length - 1; i >= 0; i--) {
      const event = events.records[i]!.payload;
      const op = event.type === 'STATE_DELTA' ? findStatus(event.delta) : undefined;
      if (op) return String(op.value);
    }
    return undefined;
  }, [events.records]);
  useEffect(() => {
    if (run && lastStatus && lastStatus !== run.status) void refresh().catch(() => undefined);
  }, [lastStatus]);

  const person = (id: string) =>
    id === session.identity.user_id
      ? 'you'
      : id === run?.user.id
        ? `${run.user.name || run.user.email} (who started the run)`
        : id;
  const failure = error ?? (events.error === undefined ? undefined : errorText(events.error));

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
        <button type="submit">Show the run</button>
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
          onChanged={() => void refresh().catch(() => undefined)}
        />
      )}
      {run && (
        <p class="links">
          {temporalUrl && (
            <a href={temporalUrl} target="_blank" rel="noopener noreferrer">
              Open the workflow in the Temporal Web UI
            </a>
          )}
          <a
            href="#/chat"
            onClick={(e) => {
              e.preventDefault();
              openInChat(run.agent_id, run.task_id);
            }}
          >
            Open the task's conversation
          </a>
        </p>
      )}
      {failure && (
        <p role="alert" class="error">
          {failure}
        </p>
      )}
      {initialRun && !events.loaded && !failure && <p role="status">Loading the run…</p>}
      {events.loaded && events.records.length === 0 && <p>This run has no events yet.</p>}
      {events.loaded && events.records.length > 0 && (
        <>
          <div role="tablist" aria-label="Run views" class="tabs">
            <button type="button" role="tab" aria-selected={tab === 'trace'} onClick={() => setTab('trace')}>
              Trace
            </button>
            <button type="button" role="tab" aria-selected={tab === 'events'} onClick={() => setTab('events')}>
              Raw events ({events.records.length})
            </button>
          </div>
          {tab === 'trace' ? (
            <TraceView records={events.records} live={!events.ended} person={person} />
          ) : (
            <EventsTable records={events.records} />
          )}
        </>
      )}
    </main>
  );
}

function findStatus(delta: unknown): { value?: unknown } | undefined {
  return Array.isArray(delta)
    ? (delta as { path?: string; value?: unknown }[]).find((d) => d.path === '/run_status')
    : undefined;
}
