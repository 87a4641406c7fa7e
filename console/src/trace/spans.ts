/**
 * A run's trace: spans on a time axis, built from its stored events alone (pure, so a live run is rebuilt
 * from the events read so far). Model steps have no start event of their own: a step starts when the
 * thing before it ended (the previous event), and its first output gives the time to first token. A tool
 * runs from the end of the model step that asked for it (or from the answer to its approval, or the end of
 * the call before it) to its TOOL_CALL_RESULT. Text deltas are folded into whole messages.
 */
import { serverToolParts, systemStatusText, toolLabel } from '../event-summary.ts';

export type SpanKind =
  | 'run'
  | 'queued'
  | 'planning'
  | 'plan_step'
  | 'model'
  | 'tool'
  | 'wait'
  | 'pause'
  | 'comment'
  | 'tool_server'
  | 'sandbox'
  | 'artifact'
  | 'status';

/** One line of a span's detail; `block` values are shown preformatted (JSON, messages). */
export interface SpanField {
  label: string;
  value: string;
  block?: boolean;
}

export interface Span {
  id: string;
  kind: SpanKind;
  label: string;
  /** Milliseconds since the epoch. */
  start: number;
  /** Undefined while the span is still open (a live run); equal to `start` for a moment (comment, status). */
  end?: number;
  /** 0 for top-level spans, 1 inside a plan step. */
  depth: number;
  outcome: 'ok' | 'error' | 'open';
  fields: SpanField[];
  /** The stored event ids (`<run_id>:<seq>`) the span was built from. */
  eventIds: string[];
}

export interface TraceRecord {
  id: string;
  payload: { type: string; timestamp: number; [key: string]: unknown };
}

type Data = Record<string, unknown>;

interface ModelStep {
  span: Span;
  firstOutput: number;
  messages: Map<string, string>;
  thoughts: string[];
  /** The tool calls it asked for. */
  calls: { id: string; name: string }[];
  retries: number;
  usage?: { step: string; input_tokens: number; output_tokens: number };
  /** Messages and calls begun and not yet ended: while any is, the step is still streaming. */
  streaming: Set<string>;
}

interface ToolCall {
  span: Span;
  args: string;
  /** When it asked for the call; the span starts when the call began to run. */
  asked: number;
  retries: number;
  progress?: string;
}

const MODEL_EVENTS = new Set([
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
]);

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Spans of `records` (in stored order), the run's span first; open spans stay open unless the run ended. */
export function buildSpans(records: readonly TraceRecord[]): Span[] {
  const spans: Span[] = [];
  if (records.length === 0) return spans;
  const first = records[0]!.payload;
  const run: Span = {
    id: 'run',
    kind: 'run',
    label: 'Run',
    start: first.timestamp,
    depth: 0,
    outcome: 'open',
    fields: [],
    eventIds: [],
  };
  spans.push(run);

  let last = first.timestamp;
  /** When the work now running began: the end of the last model step, tool call, approval or pause. */
  let boundary = first.timestamp;
  let model: ModelStep | undefined;
  const models: ModelStep[] = [];
  const tools = new Map<string, ToolCall>();
  const waits = new Map<string, Span>();
  const servers = new Map<string, Span>();
  const planTitles = new Map<number, string>();
  let planStep: Span | undefined;
  let planning: Span | undefined;
  let pause: Span | undefined;
  let queued: Span | undefined;
  let modelRetries = 0;
  let usage: Data | undefined;
  let seq = 0;

  const depth = () => (planStep ? 1 : 0);
  const open = (kind: SpanKind, label: string, start: number, id: string, fields: SpanField[] = []): Span => {
    const span: Span = {
      id: `${kind}-${++seq}`,
      kind,
      label,
      start,
      depth: depth(),
      outcome: 'open',
      fields,
      eventIds: [id],
    };
    spans.push(span);
    return span;
  };
  const close = (span: Span, at: number, outcome: Span['outcome'] = 'ok', id?: string) => {
    span.end = at;
    span.outcome = outcome;
    if (id) span.eventIds.push(id);
  };
  const moment = (kind: SpanKind, label: string, at: number, id: string, fields: SpanField[] = []) =>
    close(open(kind, label, at, id, fields), at);

  const endModel = () => {
    if (!model) return;
    boundary = model.span.end!;
    model = undefined;
  };

  for (const record of records) {
    const event = record.payload;
    const at = event.timestamp;
    const id = record.id;
    run.eventIds.push(id);
    if (MODEL_EVENTS.has(event.type) || (event.type === 'CUSTOM' && event.name === 'THOUGHT')) {
      if (!model) {
        const span = open('model', 'Model step', last, id);
        span.eventIds = [];
        model = {
          span,
          firstOutput: at,
          messages: new Map(),
          thoughts: [],
          calls: [],
          retries: modelRetries,
          streaming: new Set(),
        };
        modelRetries = 0;
        models.push(model);
      }
      model.span.end = at;
      model.span.eventIds.push(id);
      onModelEvent(model, record, tools, (span) => spans.push(span), depth());
      last = at;
      continue;
    }
    endModel();

    switch (event.type) {
      case 'RUN_STARTED':
        run.fields.push(
          { label: 'Mode', value: String(event.mode ?? '') },
          { label: 'Routing', value: String(event.routing_reason ?? '') },
        );
        break;
      case 'STATE_DELTA':
        for (const op of (event.delta as { path?: string; value?: unknown }[] | undefined) ?? []) {
          const status = op.path === '/run_status' ? String(op.value) : undefined;
          const step = /^\/plan\/steps\/(\d+)\/status$/.exec(op.path ?? '');
          if (status) {
            if (queued && status !== 'pending') {
              close(queued, at, 'ok', id);
              boundary = at;
              queued = undefined;
            }
            if (pause && status !== 'paused') {
              close(pause, at, 'ok', id);
              boundary = at;
              pause = undefined;
            }
            if (status === 'paused') pause = open('pause', 'Paused', at, id);
            if (status === 'planning') planning = open('planning', 'Planning', at, id);
          } else if (step) {
            const index = Number(step[1]);
            if (op.value === 'in_progress') {
              if (planStep) close(planStep, at);
              planStep = undefined; // opened at the top level, its work inside it
              planStep = open('plan_step', `Step ${index + 1}: ${planTitles.get(index) ?? ''}`, at, id);
              boundary = at;
            } else if (planStep && (op.value === 'completed' || op.value === 'failed')) {
              close(planStep, at, op.value === 'completed' ? 'ok' : 'error', id);
              planStep = undefined;
              boundary = at;
            }
          }
        }
        break;
      case 'TOOL_CALL_RESULT': {
        const call = tools.get(String(event.tool_call_id));
        if (call) {
          const content = String(event.content ?? '');
          call.span.start = Math.max(call.asked, Math.min(boundary, at));
          close(call.span, at, failed(content) ? 'error' : 'ok', id);
          call.span.fields.push({ label: 'Result', value: pretty(content), block: true });
        }
        boundary = at;
        break;
      }
      case 'CUSTOM':
        onCustom(event.name as string, (event.data ?? {}) as Data, at, id);
        break;
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
        close(run, at, event.type === 'RUN_ERROR' ? 'error' : 'ok', undefined);
        if (event.type === 'RUN_ERROR')
          run.fields.push({
            label: 'Error',
            value: `${String(event.code ?? 'EXECUTION_ERROR')}: ${String(event.message ?? '')}`,
          });
        break;
    }
    last = at;
  }
  // The last model step of a live run may still be streaming.
  if (model && (run.end !== undefined || model.streaming.size === 0)) endModel();
  else if (model) model.span.end = undefined;
  models.forEach(finishModel);
  if (usage) assignUsage(models, planningSpans(spans), usage);

  // The run ended: whatever is still open ended with it (a cancelled wait, a call cut short).
  if (run.end !== undefined) {
    for (const span of spans)
      if (span.end === undefined) close(span, run.end, run.outcome === 'error' ? 'error' : 'ok');
  }
  for (const call of tools.values()) {
    if (call.span.end === undefined) call.span.start = Math.max(call.asked, boundary);
    call.span.fields.unshift(...toolFields(call));
  }
  // In the order things began (an approval before the call it let run); the run first. The sort is stable.
  return [run, ...spans.slice(1).sort((a, b) => a.start - b.start)];

  function onCustom(name: string, data: Data, at: number, id: string) {
    switch (name) {
      case 'PLAN_CREATED': {
        const steps = (data.steps as { index: number; title: string }[] | undefined) ?? [];
        if (planning) {
          close(planning, at, 'ok', id);
          planning.fields.push({
            label: 'Plan',
            value: steps.map((s) => `${s.index + 1}. ${s.title}`).join('\n'),
            block: true,
          });
          planning = undefined;
        }
        for (const step of steps) planTitles.set(step.index, step.title);
        boundary = at;
        break;
      }
      case 'USER_INPUT_REQUIRED': {
        const action = data.action as { tool_name?: string; tool_call_id?: string } | undefined;
        const type = String(data.input_type ?? '');
        const label =
          type === 'action_approval'
            ? `Approval of ${toolLabel(String(action?.tool_name ?? 'a tool'))}`
            : type === 'plan_approval'
              ? 'Approval of the plan'
              : `Input: ${String(data.prompt ?? '')}`;
        const span = open('wait', label, at, id, [
          { label: 'Asked', value: String(data.prompt ?? '') },
          { label: 'Kind', value: type },
        ]);
        // An approval holds the work back: what follows starts at its answer. A question asked by a tool is that tool's own work.
        (span as Span & { gate?: boolean }).gate = type.endsWith('_approval');
        waits.set(String(data.request_id), span);
        break;
      }
      case 'USAGE':
        usage = data;
        run.fields.push(
          { label: 'Tokens', value: `${num(data.input_tokens)} in, ${num(data.output_tokens)} out` },
          { label: 'Credits', value: String(data.credits ?? 0) },
          ...(data.model ? [{ label: 'Model', value: String(data.model) }] : []),
        );
        break;
      case 'STOPPING':
        moment('status', 'Stopping', at, id);
        break;
      case 'SYSTEM_STATUS':
        onStatus(data, at, id);
        break;
      default:
        if (name.startsWith('ARTIFACT_')) {
          const title = String(data.title ?? data.artifact_id ?? '');
          moment('artifact', `${name.slice('ARTIFACT_'.length).toLowerCase()} artifact ${title}`.trim(), at, id, [
            { label: 'Artifact', value: String(data.artifact_id ?? '') },
          ]);
        }
    }
  }

  function onStatus(data: Data, at: number, id: string) {
    const status = String(data.status ?? '');
    const server = String(data.server ?? '');
    switch (status) {
      case 'answered':
      case 'dismissed':
      case 'input_received':
      case 'input_dismissed':
      case 'input_cancelled':
      case 'input_expired': {
        const wait = waits.get(String(data.request_id));
        if (!wait) return;
        const { status: _s, request_id: _r, answered_by: by, input_type: _t, ...answer } = data;
        close(wait, at, status === 'answered' || status === 'input_received' ? 'ok' : 'error', id);
        wait.fields.push(
          { label: 'Outcome', value: status === 'answered' ? 'answered' : status.replace(/^input_/, '') },
          ...(by ? [{ label: 'Answered by', value: String(by) }] : []),
          { label: 'Answered at', value: new Date(at).toISOString() },
          ...(Object.keys(answer).length
            ? [{ label: 'Answer', value: JSON.stringify(answer, null, 2), block: true }]
            : []),
        );
        if ((wait as Span & { gate?: boolean }).gate) boundary = at;
        return;
      }
      case 'comment_applied':
        moment('comment', `Comment: ${clip(String(data.content ?? ''))}`, at, id, [
          { label: 'Comment', value: String(data.content ?? ''), block: true },
        ]);
        return;
      case 'queued':
        queued ??= open('queued', 'Queued for a slot', at, id, [
          { label: 'Place in the queue', value: String(data.position ?? '') },
        ]);
        return;
      case 'tool_server_connecting':
        servers.set(server, open('tool_server', `Tool server ${server}`, at, id));
        return;
      case 'tool_server_ready':
      case 'tool_server_failed':
      case 'tool_server_retrying': {
        const span = servers.get(server) ?? open('tool_server', `Tool server ${server}`, at, id);
        servers.set(server, span);
        span.fields.push({ label: new Date(at).toISOString(), value: systemStatusText(data) ?? status });
        if (status !== 'tool_server_retrying') close(span, at, status === 'tool_server_failed' ? 'error' : 'ok', id);
        else span.eventIds.push(id);
        return;
      }
      case 'retrying':
        if (data.operation === 'tool_call') {
          const call = tools.get(String(data.tool_call_id));
          if (call) {
            call.retries++;
            call.span.eventIds.push(id);
          }
        } else {
          const messages = (data.discarded_message_ids as string[] | undefined) ?? [];
          const calls = (data.discarded_tool_call_ids as string[] | undefined) ?? [];
          const previous = models.at(-1);
          if (
            previous &&
            (messages.some((m) => previous.messages.has(m)) || previous.calls.some((c) => calls.includes(c.id)))
          ) {
            // What the failed attempt streamed is not what the model said: the step goes on with the next attempt.
            for (const m of messages) previous.messages.delete(m);
            for (const c of calls) {
              const at = spans.findIndex((s) => s.id === `tool-${c}`);
              if (at >= 0) spans.splice(at, 1);
              tools.delete(c);
            }
            previous.calls = previous.calls.filter((c) => !calls.includes(c.id));
            previous.streaming.clear();
            previous.retries++;
            previous.span.eventIds.push(id);
            model = previous;
          } else modelRetries++;
        }
        return;
      case 'tool_progress': {
        const call = tools.get(String(data.tool_call_id));
        if (call) {
          call.progress = systemStatusText(data);
          call.span.eventIds.push(id);
        }
        return;
      }
      case 'sandbox_started':
      case 'sandbox_restored':
      case 'sandbox_ready':
        moment('sandbox', status === 'sandbox_restored' ? 'Sandbox restored' : 'Sandbox started', at, id, [
          ...Object.entries(data)
            .filter(([k]) => k !== 'status')
            .map(([k, v]) => ({ label: k, value: String(v) })),
        ]);
        return;
      default:
        moment('status', systemStatusText(data) ?? status, at, id);
    }
  }
}

function onModelEvent(
  model: ModelStep,
  { id, payload: event }: TraceRecord,
  tools: Map<string, ToolCall>,
  add: (span: Span) => void,
  depth: number,
) {
  const messageId = String(event.message_id ?? '');
  switch (event.type) {
    case 'TEXT_MESSAGE_START':
      model.messages.set(messageId, model.messages.get(messageId) ?? '');
      model.streaming.add(messageId);
      break;
    case 'TEXT_MESSAGE_END':
      model.streaming.delete(messageId);
      break;
    case 'TOOL_CALL_END':
      model.streaming.delete(String(event.tool_call_id));
      break;
    case 'TEXT_MESSAGE_CONTENT':
      model.messages.set(messageId, (model.messages.get(messageId) ?? '') + String(event.delta ?? ''));
      break;
    case 'CUSTOM':
      model.thoughts.push(String((event.data as Data | undefined)?.text ?? ''));
      break;
    case 'TOOL_CALL_START': {
      const name = String(event.tool_call_name ?? '');
      const callId = String(event.tool_call_id);
      const span: Span = {
        id: `tool-${callId}`,
        kind: 'tool',
        label: toolLabel(name),
        start: event.timestamp,
        depth,
        outcome: 'open',
        fields: [],
        eventIds: [],
      };
      tools.set(callId, { span, args: '', asked: event.timestamp, retries: 0 });
      model.calls.push({ id: callId, name });
      model.streaming.add(callId);
      add(span);
      break;
    }
    case 'TOOL_CALL_ARGS': {
      const call = tools.get(String(event.tool_call_id));
      if (call) call.args += String(event.delta ?? '');
      break;
    }
  }
  const call = event.tool_call_id === undefined ? undefined : tools.get(String(event.tool_call_id));
  if (call) {
    call.asked = event.timestamp;
    call.span.start = event.timestamp;
    call.span.eventIds.push(id);
  }
}

function finishModel(model: ModelStep) {
  const span = model.span;
  const said = [...model.messages.values()].filter(Boolean).join('\n\n');
  const names = model.calls.map((c) => c.name);
  span.fields.push(
    { label: 'Time to first token', value: formatDuration(model.firstOutput - span.start) },
    ...(model.retries ? [{ label: 'Retries', value: String(model.retries) }] : []),
    ...(model.thoughts.length ? [{ label: 'Thinking', value: model.thoughts.join(''), block: true }] : []),
    ...(said ? [{ label: 'Message', value: said, block: true }] : []),
    ...(names.length ? [{ label: 'Tool calls', value: names.join(', ') }] : []),
  );
  span.label = names.length ? `Model step → ${names.join(', ')}` : 'Model step';
  if (span.end !== undefined) span.outcome = 'ok';
}

function toolFields(call: ToolCall): SpanField[] {
  const parts = serverToolParts(call.span.label.split(' ')[0]!);
  return [
    ...(parts ? [{ label: 'Tool server', value: parts.server }] : []),
    { label: 'Arguments', value: pretty(call.args), block: true },
    ...(call.retries ? [{ label: 'Retries', value: String(call.retries) }] : []),
    ...(call.progress ? [{ label: 'Progress', value: call.progress }] : []),
  ];
}

function planningSpans(spans: Span[]): Span[] {
  return spans.filter((s) => s.kind === 'planning');
}

/** The USAGE event lists each model call's tokens in order: `plan` for planning, then the loop's steps. */
function assignUsage(models: ModelStep[], planning: Span[], data: Data) {
  const steps = (data.steps as { step: string; input_tokens: number; output_tokens: number; model?: string }[]) ?? [];
  const planUsage = steps.filter((s) => s.step === 'plan');
  const loop = steps.filter((s) => s.step !== 'plan');
  planUsage.forEach((u, i) => planning[i]?.fields.push(tokenField(u)));
  // A model step whose output was all discarded left no events: then the order cannot pair them.
  if (loop.length !== models.length) return;
  loop.forEach((u, i) => {
    const span = models[i]!.span;
    span.fields.unshift(tokenField(u), { label: 'Step', value: u.step });
  });
}

function tokenField(u: { input_tokens: number; output_tokens: number }): SpanField {
  return { label: 'Tokens', value: `${num(u.input_tokens)} in, ${num(u.output_tokens)} out` };
}

function failed(content: string): boolean {
  try {
    const parsed = JSON.parse(content) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'error' in parsed;
  } catch {
    return false;
  }
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function num(n: unknown): string {
  return Number(n ?? 0).toLocaleString('en-US');
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** `850 ms`, `1.2 s`, `2 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Whether a run's status says its trace can grow no more. */
export function isFinal(status: string | undefined): boolean {
  return status !== undefined && TERMINAL.has(status);
}
