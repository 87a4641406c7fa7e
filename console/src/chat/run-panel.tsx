/** Beside the conversation: the run's mode and routing reason, its tool servers' status, plan steps, artifacts, usage and credits, and its controls. */
import type { AgentRunClient } from '@agent-run/client';
import { useState } from 'preact/hooks';
import { errorText } from '../session.ts';
import type { RunView } from './run-view.ts';

interface Props {
  view: RunView;
  client: AgentRunClient;
  taskId: string | undefined;
}

export function RunPanel({ view, client, taskId }: Props) {
  return (
    <aside class="run-panel" aria-label="Run">
      <p>
        Status:{' '}
        <span class={`badge phase-${view.phase}`} data-testid="run-phase">
          {view.outcome ? `${view.phase} (${view.outcome})` : view.phase}
        </span>
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
      {taskId && view.runId && (view.phase === 'running' || view.phase === 'waiting') && (
        <Controls client={client} taskId={taskId} runId={view.runId} />
      )}
    </aside>
  );
}

function Controls({ client, taskId, runId }: { client: AgentRunClient; taskId: string; runId: string }) {
  const [note, setNote] = useState<string>();
  const [comment, setComment] = useState('');
  const act = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call();
      setNote(`${what}: done`);
    } catch (err) {
      setNote(`${what}: ${errorText(err)}`);
    }
  };
  return (
    <section aria-label="Run controls">
      <div class="buttons">
        <button type="button" class="danger" onClick={() => void act('Cancel', () => client.tasks.cancel(taskId))}>
          Cancel
        </button>
        <button type="button" class="secondary" onClick={() => void act('Pause', () => client.tasks.pause(taskId))}>
          Pause
        </button>
        <button type="button" class="secondary" onClick={() => void act('Resume', () => client.tasks.resume(taskId))}>
          Resume
        </button>
      </div>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          void act('Comment', () => client.tasks.comment(taskId, runId, comment)).then(() => setComment(''));
        }}
      >
        <label>
          Comment to the running agent
          <input value={comment} required onInput={(e) => setComment(e.currentTarget.value)} />
        </label>
        <button type="submit" class="secondary">
          Send comment
        </button>
      </form>
      {note && <p role="status">{note}</p>}
    </section>
  );
}

/** `1 credit`, `2 credits`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
