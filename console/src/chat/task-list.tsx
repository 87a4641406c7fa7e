/** The agent's tasks (newest first) with their status, searchable by title. */
import type { AgentRunClient, TaskSummary } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../session.ts';

interface Props {
  client: AgentRunClient;
  selected: string | undefined;
  /** Changes whenever the list should be read again (a run ended, a task started). */
  version: number;
  onSelect(taskId: string | undefined): void;
}

export function TaskList({ client, selected, version, onSelect }: Props) {
  const [tasks, setTasks] = useState<TaskSummary[]>([]);
  const [error, setError] = useState<string>();
  const [query, setQuery] = useState('');
  useEffect(() => {
    const abort = new AbortController();
    client.tasks.list({ limit: 100, signal: abort.signal }).then(
      (list) => (setTasks(list.tasks), setError(undefined)),
      (err) => abort.signal.aborted || setError(errorText(err)),
    );
    return () => abort.abort();
  }, [client, version, selected]);
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
              <span class={`badge status-${t.run_status}`}>{t.run_status}</span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
