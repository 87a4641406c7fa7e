/**
 * The runs page: every run the viewer may see (GET /api/runs), newest first, filtered by status ("Needs you"
 * first), agent, source and time range, paged with the API's cursor and read again every few seconds.
 */
import type { RunListItem, RunListOptions, RunListStatus, UsableAgent } from '@agent-run/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { RUN_STATUS_FILTERS, runStatusLabel } from './run-status.ts';
import { errorText, type Session } from './session.ts';

const PAGE = 50;
/** The API's largest page: a refresh reads at most this many rows again. */
const REFRESH_MAX = 200;
const REFRESH_MS = 4000;

interface Filters {
  status: RunListStatus | '';
  agent: string;
  source: string;
  since: string;
  until: string;
}

/** A datetime-local value (the browser's local time) as the ISO 8601 instant the API takes. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

function query(f: Filters): RunListOptions {
  return {
    status: f.status || undefined,
    agent_id: f.agent || undefined,
    source: f.source.trim() || undefined,
    since: instant(f.since),
    until: instant(f.until),
  };
}

const when = (iso: string) => new Date(iso).toLocaleString();

export function RunsView({ session }: { session: Session }) {
  const [filters, setFilters] = useState<Filters>({ status: '', agent: '', source: '', since: '', until: '' });
  const [agents, setAgents] = useState<UsableAgent[]>([]);
  const [runs, setRuns] = useState<RunListItem[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [loadingMore, setLoadingMore] = useState(false);
  /** How many rows the refresh keeps up to date: a page, plus what More loaded. */
  const shown = useRef(PAGE);
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));

  useEffect(() => {
    session.client.agents.list().then(
      (list) => setAgents(list.agents),
      () => setAgents([]),
    );
  }, [session]);

  // The first page now, then the rows shown read again every few seconds (statuses change, new runs arrive).
  useEffect(() => {
    const abort = new AbortController();
    shown.current = PAGE;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setRuns(undefined);
    const read = async () => {
      try {
        const page = await session.client.runs.list({
          ...query(filters),
          limit: Math.min(REFRESH_MAX, shown.current),
          signal: abort.signal,
        });
        if (shown.current <= REFRESH_MAX) {
          setRuns(page.runs);
          setCursor(page.next_cursor);
        } else {
          // Beyond the API's largest page, the older rows loaded with More stay as they were.
          const fresh = new Set(page.runs.map((r) => r.run_id));
          setRuns((prev) => [
            ...page.runs,
            ...(prev ?? []).slice(page.runs.length).filter((r) => !fresh.has(r.run_id)),
          ]);
        }
        setError(undefined);
      } catch (err) {
        if (!abort.signal.aborted) setError(errorText(err));
      }
      if (!abort.signal.aborted) timer = setTimeout(() => void read(), REFRESH_MS);
    };
    void read();
    return () => (abort.abort(), clearTimeout(timer));
  }, [session, filters]);

  const more = async () => {
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await session.client.runs.list({ ...query(filters), limit: PAGE, cursor });
      shown.current += page.runs.length;
      setRuns((prev) => [...(prev ?? []), ...page.runs.filter((r) => !prev?.some((p) => p.run_id === r.run_id))]);
      setCursor(page.next_cursor);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <main class="runs">
      <h2>Runs</h2>
      <form class="form inline" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={filters.status} onChange={(e) => set({ status: e.currentTarget.value as Filters['status'] })}>
            <option value="">Any status</option>
            {RUN_STATUS_FILTERS.map((s) => (
              <option key={s} value={s}>
                {runStatusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select value={filters.agent} onChange={(e) => set({ agent: e.currentTarget.value })}>
            <option value="">Any agent</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Source
          <input
            list="run-sources"
            placeholder="cli, console, mcp, widget, flow, a flow's name…"
            value={filters.source}
            onChange={(e) => set({ source: e.currentTarget.value })}
          />
          <datalist id="run-sources">
            {['cli', 'sdk', 'console', 'mcp', 'ag-ui', 'api', 'widget', 'flow'].map((kind) => (
              <option key={kind} value={kind} />
            ))}
          </datalist>
        </label>
        <label>
          From
          <input type="datetime-local" value={filters.since} onChange={(e) => set({ since: e.currentTarget.value })} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={filters.until} onChange={(e) => set({ until: e.currentTarget.value })} />
        </label>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!runs && !error && <p role="status">Loading runs…</p>}
      {runs?.length === 0 && <p>No run matches.</p>}
      {runs && runs.length > 0 && (
        <table class="events run-list">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Agent</th>
              <th scope="col">Task</th>
              <th scope="col">Source</th>
              <th scope="col">Started by</th>
              <th scope="col">Started</th>
              <th scope="col">Tokens</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.run_id} data-run={r.run_id} data-status={r.status}>
                <td>
                  <a href={`#/inspect/${encodeURIComponent(r.run_id)}`}>{r.run_id}</a>
                </td>
                <td>
                  <span class={`badge status-${r.status}`}>{runStatusLabel(r.status)}</span>
                  {r.needs_you && <span class="badge needs-you">{runStatusLabel('needs_you')}</span>}
                </td>
                <td>{r.agent_name}</td>
                <td>{r.task_title || r.task_id}</td>
                <td>{r.source.kind === 'flow' ? `flow: ${r.source.flow_name ?? r.source.flow_id}` : r.source.kind}</td>
                <td>{r.user.visitor ? 'widget visitor' : r.user.name || r.user.email}</td>
                <td>{when(r.started_at)}</td>
                <td>{r.usage.input_tokens + r.usage.output_tokens}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" disabled={loadingMore} onClick={() => void more()}>
          More
        </button>
      )}
    </main>
  );
}
