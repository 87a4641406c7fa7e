/**
 * A run's controls, shown only where they apply: Pause on an executing run (not while it waits for an
 * answer: the service refuses that), Resume on a paused one, Cancel and a steering comment while it has
 * not ended. Used by the chat's run panel and the run inspector. They act on the task's active run.
 */
import type { AgentRunClient } from '@agent-run/client';
import { useState } from 'preact/hooks';
import { runControlsFor, type RunStatus } from './run-status.ts';
import { errorText } from './session.ts';

interface Props {
  /** A client acting for the run's agent. */
  client: AgentRunClient;
  taskId: string;
  runId: string;
  status: RunStatus;
  waiting?: boolean;
  /** After an action was accepted: the caller reads the run's status again (or its stream tells it). */
  onChanged?(): void;
}

export function RunControls({ client, taskId, runId, status, waiting, onChanged }: Props) {
  const [note, setNote] = useState<string>();
  const [comment, setComment] = useState('');
  const shown = runControlsFor(status, waiting);
  if (!shown.cancel) return null;
  const act = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call();
      setNote(`${what}: done`);
      onChanged?.();
    } catch (err) {
      setNote(`${what}: ${errorText(err)}`);
    }
  };
  return (
    <section class="run-controls" aria-label="Run controls">
      <div class="buttons">
        {shown.pause && (
          <button type="button" class="secondary" onClick={() => void act('Pause', () => client.tasks.pause(taskId))}>
            Pause
          </button>
        )}
        {shown.resume && (
          <button type="button" class="secondary" onClick={() => void act('Resume', () => client.tasks.resume(taskId))}>
            Resume
          </button>
        )}
        <button type="button" class="danger" onClick={() => void act('Cancel', () => client.tasks.cancel(taskId))}>
          Cancel
        </button>
      </div>
      {shown.comment && (
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
      )}
      {note && <p role="status">{note}</p>}
    </section>
  );
}
