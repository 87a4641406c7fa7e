/** What the conversation shows, folded from a run's events (AG-UI, as the SDK yields them). */
import { userInputRequest, type RunEvent, type RunSummary, type UserInputRequest } from '@agent-run/client';
import { systemStatusText } from '../event-summary.ts';

export type Item =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string }
  | { kind: 'thought'; id: string; text: string }
  | { kind: 'tool'; id: string; name: string; args: string; result?: string }
  | { kind: 'input'; id: string; request: UserInputRequest; answered: boolean }
  | { kind: 'error'; id: string; text: string };

export interface PlanStep {
  title: string;
  status: string;
}

export interface Artifact {
  id: string;
  title: string;
  kind: string;
  version: number;
  status: string;
}

export interface Usage {
  total_tokens?: number;
  credits?: number;
  model?: string;
}

/** The last word of one tool server of the run (connecting, ready, failed, retrying). */
export interface ToolServerState {
  server: string;
  state: string;
  text: string;
}

export type RunPhase = 'idle' | 'running' | 'waiting' | 'finished' | 'failed';
export type RunStatus = RunSummary['status'];

export interface RunView {
  items: Item[];
  phase: RunPhase;
  /** The run's status as the spec names it: from its events (every move is a STATE_DELTA of /run_status) or its task's status. */
  status?: RunStatus;
  runId?: string;
  mode?: string;
  routingReason?: string;
  plan?: PlanStep[];
  artifacts: Artifact[];
  usage?: Usage;
  outcome?: string;
  toolServers?: ToolServerState[];
}

export const emptyView: RunView = { items: [], phase: 'idle', artifacts: [] };

/** Adds the user's message (shown at once, before the run's first event). */
export function withUserMessage(view: RunView, text: string): RunView {
  return { ...view, phase: 'running', items: [...view.items, { kind: 'user', id: `user-${view.items.length}`, text }] };
}

/** Marks the question answered (its form closes). */
export function withAnswered(view: RunView, requestId: string): RunView {
  return {
    ...view,
    phase: 'running',
    items: view.items.map((i) => (i.kind === 'input' && i.id === requestId ? { ...i, answered: true } : i)),
  };
}

/** Nothing waits for an answer any more (answered elsewhere, e.g. in the inbox, while this tab was away). */
export function withNothingPending(view: RunView): RunView {
  return view.phase === 'waiting' ? { ...view, phase: 'running', items: closeQuestions(view.items) } : view;
}

/** The next view after one event. */
export function applyEvent(view: RunView, event: RunEvent): RunView {
  const next: RunView = { ...view, items: [...view.items] };
  const update = <K extends Item['kind']>(kind: K, id: string, change: (item: Extract<Item, { kind: K }>) => Item) => {
    const at = next.items.findIndex((i) => i.kind === kind && i.id === id);
    if (at >= 0) next.items[at] = change(next.items[at] as Extract<Item, { kind: K }>);
  };
  switch (event.type) {
    case 'RUN_STARTED':
      return {
        ...next,
        phase: 'running',
        status: 'pending',
        runId: event.run_id,
        mode: event.mode,
        routingReason: event.routing_reason,
        plan: undefined,
        usage: undefined,
        outcome: undefined,
      };
    case 'RUN_FINISHED':
      return {
        ...next,
        phase: 'finished',
        status: 'completed',
        outcome: String(event.result.outcome ?? 'completed'),
        items: closeQuestions(next.items),
      };
    case 'RUN_ERROR':
      next.items.push({ kind: 'error', id: `error-${event.run_id}`, text: `${event.code}: ${event.message}` });
      return {
        ...next,
        phase: 'failed',
        status: event.code === 'CANCELLED' ? 'cancelled' : 'failed',
        items: closeQuestions(next.items),
      };
    case 'TEXT_MESSAGE_START':
      next.items.push({ kind: 'assistant', id: event.message_id, text: '' });
      return next;
    case 'TEXT_MESSAGE_CONTENT':
      update('assistant', event.message_id, (i) => ({ ...i, text: i.text + event.delta }));
      return next;
    case 'TOOL_CALL_START':
      next.items.push({ kind: 'tool', id: event.tool_call_id, name: event.tool_call_name, args: '' });
      return next;
    case 'TOOL_CALL_ARGS':
      update('tool', event.tool_call_id, (i) => ({ ...i, args: i.args + event.delta }));
      return next;
    case 'TOOL_CALL_RESULT':
      update('tool', event.tool_call_id, (i) => ({ ...i, result: event.content }));
      return next;
    case 'STATE_SNAPSHOT':
      return withPlanSnapshot(withStatus(next, event.state.run_status), event.state);
    case 'STATE_DELTA':
      return withPlanDelta(withStatusDelta(next, event.delta), event.delta);
    case 'CUSTOM':
      return applyCustom(next, event);
    default:
      return view;
  }
}

function applyCustom(next: RunView, event: Extract<RunEvent, { type: 'CUSTOM' }>): RunView {
  const data = event.data;
  const request = userInputRequest(event);
  if (request) {
    if (!next.items.some((i) => i.kind === 'input' && i.id === request.request_id)) {
      next.items.push({ kind: 'input', id: request.request_id, request, answered: false });
    }
    return { ...next, phase: 'waiting' };
  }
  if (event.name === 'THOUGHT') {
    // Thoughts arrive in chunks: consecutive ones are one item.
    const text = String(data.text ?? '');
    const last = next.items.at(-1);
    if (last?.kind === 'thought') next.items[next.items.length - 1] = { ...last, text: last.text + text };
    else next.items.push({ kind: 'thought', id: `thought-${next.items.length}`, text });
  } else if (event.name === 'SYSTEM_STATUS' && String(data.status).startsWith('tool_server_')) {
    const server = String(data.server);
    const state = {
      server,
      state: String(data.status).slice('tool_server_'.length),
      text: systemStatusText(data) ?? '',
    };
    const known = next.toolServers ?? [];
    next.toolServers = known.some((s) => s.server === server)
      ? known.map((s) => (s.server === server ? state : s))
      : [...known, state];
  } else if (event.name === 'USAGE') {
    next.usage = data as Usage;
  } else if (event.name.startsWith('ARTIFACT_') && typeof data.artifact_id === 'string') {
    next.artifacts = withArtifact(next.artifacts, event.name, data);
  }
  return next;
}

function withArtifact(list: Artifact[], name: string, data: Record<string, unknown>): Artifact[] {
  const id = data.artifact_id as string;
  const old = list.find((a) => a.id === id);
  const status =
    name === 'ARTIFACT_COMPLETED'
      ? 'completed'
      : name === 'ARTIFACT_ERROR'
        ? 'error'
        : String(data.status ?? old?.status ?? 'draft');
  const artifact: Artifact = {
    id,
    title: String(data.title ?? old?.title ?? id),
    kind: String(data.kind ?? old?.kind ?? ''),
    version: Number(data.version ?? old?.version ?? 1),
    status,
  };
  return old ? list.map((a) => (a.id === id ? artifact : a)) : [...list, artifact];
}

const runStatuses = new Set<unknown>([
  'pending',
  'planning',
  'awaiting_approval',
  'executing',
  'paused',
  'completed',
  'failed',
  'cancelled',
] satisfies RunStatus[]);

function withStatus(next: RunView, status: unknown): RunView {
  return runStatuses.has(status) ? { ...next, status: status as RunStatus } : next;
}

function withStatusDelta(next: RunView, delta: unknown[]): RunView {
  const op = (delta as { op?: string; path?: string; value?: unknown }[]).find((o) => o.path === '/run_status');
  return op ? withStatus(next, op.value) : next;
}

function withPlanSnapshot(next: RunView, state: Record<string, unknown>): RunView {
  const plan = state.plan as { steps?: { title: string; status: string }[] } | undefined;
  if (!plan?.steps) return next;
  return { ...next, plan: plan.steps.map((s) => ({ title: s.title, status: s.status })) };
}

function withPlanDelta(next: RunView, delta: unknown[]): RunView {
  if (!next.plan) return next;
  const plan = [...next.plan];
  for (const op of delta as { op?: string; path?: string; value?: unknown }[]) {
    const match = /^\/plan\/steps\/(\d+)\/status$/.exec(op.path ?? '');
    const step = match ? plan[Number(match[1])] : undefined;
    if (step && op.op === 'replace') plan[Number(match![1])] = { ...step, status: String(op.value) };
  }
  return { ...next, plan };
}

/** A finished run asks nothing any more. */
function closeQuestions(items: Item[]): Item[] {
  return items.map((i) => (i.kind === 'input' && !i.answered ? { ...i, answered: true } : i));
}
