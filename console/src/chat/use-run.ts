/** The conversation of one task: sends messages, follows the run's stream, answers its questions, reopens a task after a reload. */
import type { AgentRunClient, InputAnswer, RunStream, RunSummary, UserInputRequest } from '@agent-run/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText, saveAgentId } from '../session.ts';
import { historyItems } from './history.ts';
import { loadSnapshot, snapshotWriter } from './run-snapshot.ts';
import { applyEvent, emptyView, withAnswered, withNothingPending, withUserMessage, type RunView } from './run-view.ts';

const TASK_ITEM = 'ars.console.taskId';

/** Opens a task's conversation in the chat (from a run's trace): the chat reopens this tab's saved task. */
export function openInChat(agentId: string, taskId: string): void {
  saveAgentId(agentId);
  sessionStorage.setItem(TASK_ITEM, taskId);
  location.hash = '#/chat';
}

export interface RunControls {
  view: RunView;
  taskId: string | undefined;
  /** Every run of the open task, newest first (status, usage), read when it opens and when a run ends. */
  runs: RunSummary[];
  send(message: string, mode: 'auto' | 'fast' | 'deep'): Promise<void>;
  open(taskId: string | undefined): Promise<void>;
  answer(request: UserInputRequest, answer: InputAnswer): Promise<void>;
}

export function useRun(client: AgentRunClient | undefined, onRunEnd: () => void): RunControls {
  const [view, setViewState] = useState<RunView>(emptyView);
  const [taskId, setTaskId] = useState<string>();
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const following = useRef<AbortController>(undefined);
  const current = useRef<RunView>(emptyView);
  const snapshots = useRef(snapshotWriter()).current;
  // The view lives in a ref too, so each event's snapshot is the view it produced.
  const setView = (change: RunView | ((v: RunView) => RunView)) => {
    current.current = typeof change === 'function' ? change(current.current) : change;
    setViewState(current.current);
  };

  const stop = () => {
    following.current?.abort();
    following.current = new AbortController();
    return following.current.signal;
  };

  const follow = async (stream: RunStream, signal: AbortSignal) => {
    let streamTask: string | undefined;
    void stream.taskId.then(
      (id) => (streamTask = id),
      () => undefined,
    );
    try {
      for await (const event of stream) {
        setView((v) => applyEvent(v, event));
        const { runId } = current.current;
        if (streamTask && runId && stream.lastEventId)
          snapshots.save(
            { taskId: streamTask, runId, lastEventId: stream.lastEventId, view: current.current },
            current.current.phase === 'waiting',
          );
      }
      snapshots.clear();
      if (streamTask) await readRuns(streamTask, signal);
    } catch (err) {
      if (!signal.aborted)
        setView((v) => ({
          ...v,
          phase: 'failed',
          items: [...v.items, { kind: 'error', id: `error-${v.items.length}`, text: errorText(err) }],
        }));
    }
    if (!signal.aborted) onRunEnd();
  };

  const readRuns = async (id: string, signal: AbortSignal) => {
    const task = await client?.tasks.get(id, { signal });
    if (task && !signal.aborted) setRuns(task.runs);
  };

  const remember = (id: string | undefined) => {
    setTaskId(id);
    if (id) sessionStorage.setItem(TASK_ITEM, id);
    else sessionStorage.removeItem(TASK_ITEM);
  };

  const send = async (message: string, mode: 'auto' | 'fast' | 'deep') => {
    if (!client) return;
    const signal = stop();
    setView((v) => withUserMessage(v, message));
    const stream = client.runs.stream({ message, mode, taskId, signal });
    void stream.taskId.then(remember, () => undefined);
    await follow(stream, signal);
  };

  /**
   * Shows a task's history. If its run is still going, shows any pending question at once and follows
   * the run: after the last event this tab saw (its snapshot), or from the run's start.
   */
  const open = async (id: string | undefined) => {
    const signal = stop();
    remember(id);
    setView(emptyView);
    setRuns([]);
    if (!client || !id) return;
    try {
      const [messages, status, task] = await Promise.all([
        client.tasks.messages(id, { signal }),
        client.runs.status(id, { signal }),
        client.tasks.get(id, { signal }),
      ]);
      setRuns(task.runs);
      const activeRun = status.active ? status.run?.id : undefined;
      const snapshot = activeRun ? loadSnapshot(id, activeRun) : undefined;
      setView(
        snapshot?.view ?? {
          ...emptyView,
          phase: activeRun ? 'running' : 'idle',
          runId: status.run?.id,
          status: status.run?.status,
          items: historyItems(messages.messages, activeRun),
        },
      );
      if (!activeRun) return;
      const pending = await client.input.pending(id, { signal });
      if (pending.pending) {
        const request = pending.request;
        setView((v) =>
          v.items.some((i) => i.kind === 'input' && i.id === request.request_id)
            ? { ...v, phase: 'waiting' }
            : {
                ...v,
                phase: 'waiting',
                items: [...v.items, { kind: 'input', id: request.request_id, request, answered: false }],
              },
        );
      } else setView(withNothingPending);
      // After the last event this tab showed, or the whole run when it kept nothing.
      await follow(client.tasks.stream(id, { signal, lastEventId: snapshot?.lastEventId }), signal);
    } catch (err) {
      if (!signal.aborted)
        setView((v) => ({ ...v, items: [...v.items, { kind: 'error', id: 'open-error', text: errorText(err) }] }));
    }
  };

  const answer = async (request: UserInputRequest, value: InputAnswer) => {
    if (!client || !taskId) return;
    await client.input.answer(taskId, request, value);
    setView((v) => withAnswered(v, request.request_id));
  };

  // After a reload, reopen this tab's task (resuming its run if one is going).
  useEffect(() => {
    const saved = sessionStorage.getItem(TASK_ITEM);
    if (client && saved) void open(saved);
    return () => following.current?.abort();
  }, [client]); // once per client

  return { view, taskId, runs, send, open, answer };
}
