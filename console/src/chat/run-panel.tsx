/**
 * Beside the conversation: the run's status, mode and routing reason, its tool servers' status, plan steps,
 * artifacts, usage and credits, the controls that apply to it, and every run of the task with a link to its trace.
 */
import type { AgentRunClient, RunSummary } from '@agent-run/client';
import { RunControls } from '../run-controls.tsx';
import { runStatusLabel } from '../run-status.ts';
import type { RunView } from './run-view.ts';

interface Props {
  view: RunView;
  client: AgentRunClient;
  taskId: string | undefined;
  runs: RunSummary[];
}

export function RunPanel({ view, client, taskId, runs }: Props) {
  const waiting = view.phase === 'waiting';
  return (
    <aside class="run-panel" aria-label="Run">
      <p>
        Status:{' '}
        <span class={`badge status-${view.status ?? 'none'}`} data-testid="run-status">
          {view.status ? runStatusLabel(view.status) : view.phase === 'idle' ? 'No run yet' : runStatusLabel('pending')}
        </span>{' '}
        {waiting && <span class="badge needs-you">{runStatusLabel('needs_you')}</span>}
      </p>
      {view.mode && (
        <p data-testid="run-mode">
          Mode: <strong>{view.mode}</strong> — {view.routingReason}
        </p>
      )}
      {view.runId && (
        <p>
          Run: <a href={`#/inspect/${view.runId}`}>{view.runId}</a>
        </p>
      )}
      {view.toolServers && (
        <section>
          <h3>Tool servers</h3>
          <ul aria-label="Tool servers">
            {view.toolServers.map((s) => (
              <li key={s.server} class={`server-${s.state}`}>
                {s.text}
              </li>
            ))}
          </ul>
        </section>
      )}
      {view.plan && (
        <section>
          <h3>Plan</h3>
          <ol class="plan">
            {view.plan.map((s, i) => (
              <li key={i} class={`step-${s.status}`}>
                {s.title} <span class="badge">{s.status}</span>
              </li>
            ))}
          </ol>
        </section>
      )}
      {view.artifacts.length > 0 && (
        <section>
          <h3>Artifacts</h3>
          <ul>
            {view.artifacts.map((a) => (
              <li key={a.id}>
                {a.title} <span class="badge">{a.kind}</span> v{a.version} <span class="badge">{a.status}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {view.usage && (
        <p data-testid="run-usage">
          Usage: {counted(view.usage.total_tokens ?? 0, 'token')}, {counted(view.usage.credits ?? 0, 'credit')}
          {view.usage.model ? ` (${view.usage.model})` : ''}
        </p>
      )}
      {taskId && view.runId && view.status && (
        <RunControls client={client} taskId={taskId} runId={view.runId} status={view.status} waiting={waiting} />
      )}
      {runs.length > 0 && <TaskRuns runs={runs} />}
    </aside>
  );
}

/** The task's runs, newest first: status, mode, usage, when, and a link to each one's trace. */
function TaskRuns({ runs }: { runs: RunSummary[] }) {
  return (
    <section>
      <h3>Runs of this task</h3>
      <ul class="task-runs" aria-label="Runs of this task">
        {runs.map((r) => (
          <li key={r.id} data-run={r.id}>
            <span class={`badge status-${r.status}`}>{runStatusLabel(r.status)}</span>{' '}
            <a href={`#/inspect/${encodeURIComponent(r.id)}`}>{r.id}</a>
            <span class="meta">
              {' '}
              {r.mode} · {counted(r.input_tokens + r.output_tokens, 'token')}, {counted(r.credits_used, 'credit')} ·{' '}
              {new Date(r.created_at).toLocaleString()}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `1 credit`, `2 credits`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
