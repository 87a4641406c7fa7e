/**
 * The agent's tasks (newest first), searchable by title, each with its latest run's status in the words the
 * whole console uses, and "Needs you" when that run waits on the viewer's answer (GET /api/runs' own rule).
 */
import type { AgentRunClient, TaskSummary } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
import { runStatusLabel } from '../run-status.ts';
import { errorText } from '../session.ts';

interface Props {
  client: AgentRunClient;
  agentId: string;
  selected: string | undefined;
  /** Changes whenever the list should be read again (a run ended, a task started). */
  version: number;
  onSelect(taskId: string | undefined): void;
}

/** How often the list is read again, so a run that starts waiting on you shows without a click. */
const REFRESH_MS = 5000;

export function TaskList({ client, agentId, selected, version, onSelect }: Props) {
  const [tasks, setTasks] = useState<TaskSummary[]>([]);
  const [waitingOnYou, setWaitingOnYou] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string>();
  const [query, setQuery] = useState('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    const abort = new AbortController();
    Promise.all([
      client.tasks.list({ limit: 100, signal: abort.signal }),
      client.runs.list({ status: 'needs_you', agent_id: agentId, limit: 200, signal: abort.signal }),
    ]).then(
      ([list, waiting]) => (
        setTasks(list.tasks),
        setWaitingOnYou(new Set(waiting.runs.map((r) => r.run_id))),
        setError(undefined)
      ),
      (err) => abort.signal.aborted || setError(errorText(err)),
    );
    return () => abort.abort();
  }, [client, agentId, version, selected, tick]);
  const shown = tasks.filter((t) => t.title.toLowerCase().includes(query.trim().toLowerCase()));
  return (
    <nav class="task-list" aria-label="Tasks">
      <button type="button" onClick={() => onSelect(undefined)}>
        New task
      </button>
      <label>
        Search tasks
        <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul>
        {shown.map((t) => (
          <li key={t.id}>
            <button
              type="button"
              class="link"
              aria-current={t.id === selected ? 'true' : undefined}
              onClick={() => onSelect(t.id)}
            >
              <span class="title">{t.title || t.id}</span>{' '}
              {t.latest_run_status && (
                <span class={`badge status-${t.latest_run_status}`}>{runStatusLabel(t.latest_run_status)}</span>
              )}
              {t.latest_run_id && waitingOnYou.has(t.latest_run_id) && (
                <span class="badge needs-you">{runStatusLabel('needs_you')}</span>
              )}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
