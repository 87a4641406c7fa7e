import type { ChatMessage, ModelChunk, ModelProvider, ModelRequest } from './provider.ts';

export const OFFLINE_MODEL_LABEL = 'offline (built-in deterministic model, no provider configured)';
/** The offline model waits this long before each word, so its answers stream like a real model's. */
export const OFFLINE_WORD_DELAY_MS = 15;
/** An agent's `model` that makes the offline model answer at once (no pacing): for tests and benchmarks. */
export const OFFLINE_INSTANT_MODEL = 'instant';

export interface ToolDirective {
  name: string;
  args: unknown;
}

/**
 * Lines `/tool <name> <json arguments>` in a user message. The offline model
 * calls these tools in order, one per model step, then answers with their results.
 */
export function parseToolDirectives(text: string): ToolDirective[] {
  const directives: ToolDirective[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*\/tool\s+([A-Za-z_][\w-]*)\s*(.*)$/.exec(line);
    if (!match) continue;
    let args: unknown = {};
    if (match[2]!.trim()) {
      try {
        args = JSON.parse(match[2]!);
      } catch {
        args = { _unparsed: match[2] };
      }
    }
    directives.push({ name: match[1]!, args });
  }
  return directives;
}

/**
 * The built-in offline model: deterministic, needs no network, and streams like
 * a real model. It answers by echoing the conversation, and drives tools from
 * `/tool` directives (see parseToolDirectives), so every feature can be shown
 * and tested on a machine with no model API.
 */
export class OfflineModel implements ModelProvider {
  readonly label = OFFLINE_MODEL_LABEL;

  constructor(private readonly chunkDelayMs = OFFLINE_WORD_DELAY_MS) {}

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const next = request.purpose === 'plan' ? undefined : nextDirective(request);
    const answer =
      request.purpose === 'plan'
        ? offlinePlan(request.messages)
        : next
          ? `Calling ${next.name}.`
          : offlineAnswer(request.messages);
    if (next)
      yield {
        type: 'reasoning',
        text: `The request lists a /tool ${next.name} line that has not run yet, so I call it now.`,
      };
    for (const piece of answer.match(/\S+\s*/g) ?? []) {
      request.signal.throwIfAborted();
      if (this.chunkDelayMs > 0) await sleep(this.chunkDelayMs, request.signal);
      yield { type: 'text', text: piece };
    }
    if (next) {
      const id = `call_${request.messages.length}_${next.name}`;
      const json = JSON.stringify(next.args);
      yield { type: 'tool-start', id, name: next.name };
      const half = Math.ceil(json.length / 2);
      yield { type: 'tool-args', id, delta: json.slice(0, half) };
      if (json.length > half) yield { type: 'tool-args', id, delta: json.slice(half) };
      yield { type: 'tool-call', id, name: next.name, args: next.args };
    }
    const prompt = request.messages.map((m) => m.content).join('\n') + (request.system ?? '');
    yield { type: 'finish', usage: { inputTokens: estimateTokens(prompt), outputTokens: estimateTokens(answer) } };
  }
}

/** The directive to run now: the first of the last user message's directives that has no result yet. */
function nextDirective(request: ModelRequest): ToolDirective | undefined {
  const messages = request.messages;
  const lastUser = findLastIndex(messages, (m) => m.role === 'user');
  if (lastUser < 0) return undefined;
  const directives = parseToolDirectives(messages[lastUser]!.content);
  const done = messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
  const next = directives[done];
  if (!next || !request.tools.some((t) => t.name === next.name)) return undefined;
  return next;
}

/** A numbered plan: one step per tool directive, else three generic steps, then a summary. */
export function offlinePlan(messages: ChatMessage[]): string {
  const lastUser = findLastIndex(messages, (m) => m.role === 'user');
  const query = lastUser >= 0 ? messages[lastUser]!.content : '';
  const directives = parseToolDirectives(query);
  const steps = directives.length
    ? directives.map((d) => `Run ${d.name}`)
    : ['Understand the request', `Work on: ${truncate(query.split('\n')[0] ?? '', 80)}`];
  return [...steps, 'Summarize the results'].map((s, i) => `${i + 1}. ${s}`).join('\n');
}

export function offlineAnswer(messages: ChatMessage[]): string {
  const lastUser = findLastIndex(messages, (m) => m.role === 'user');
  const results = messages
    .slice(lastUser + 1)
    .filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool');
  const step = currentPlanStep(messages.slice(lastUser + 1));
  if (results.length > 0) {
    const lines = results.map((r) => `${r.toolName} → ${truncate(r.content, 300)}`);
    const ran = `I ran ${results.length} tool call${results.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
    return step ? `${stepHeading(step)}: ${ran}` : `Offline model here. ${ran}`;
  }
  if (step) return planStepAnswer(step, lastUser >= 0 ? messages[lastUser]!.content : '');
  const earlier = messages.filter((m) => m.role === 'user' || m.role === 'assistant').length - 1;
  const context =
    earlier > 0 ? ` I can see ${earlier} earlier message${earlier === 1 ? '' : 's'} in this conversation.` : '';
  return `Offline model here (no model provider is configured). You said: "${lastUser >= 0 ? messages[lastUser]!.content : ''}".${context}`;
}

interface PlanStep {
  number: number;
  of: number;
  title: string;
}

/** The deep-mode step being worked on: the last step instruction (src/workflows/plan.ts) after the user's message. */
function currentPlanStep(sinceUser: ChatMessage[]): PlanStep | undefined {
  const instruction = sinceUser.findLast((m) => m.role === 'system')?.content ?? '';
  const match = /^Plan step (\d+) of (\d+): (.*)\. Do this step now\.$/s.exec(instruction);
  return match ? { number: Number(match[1]), of: Number(match[2]), title: match[3]! } : undefined;
}

function stepHeading(step: PlanStep): string {
  return `Step ${step.number} of ${step.of}, ${step.title}`;
}

/** Each step of an offline plan (offlinePlan) answered for what it is, so a deep run reads as one. */
function planStepAnswer(step: PlanStep, request: string): string {
  const asked = `"${truncate(request.split('\n')[0] ?? '', 120)}"`;
  if (step.title === 'Understand the request')
    return `${stepHeading(step)}: you asked ${asked}. I will work on it, then summarize.`;
  if (step.title.startsWith('Work on: '))
    return `${stepHeading(step)}: here a configured model would do the work; the offline model (no provider configured) shows the run's shape only.`;
  if (step.title === 'Summarize the results')
    return `${stepHeading(step)}: I read the request and worked on it in ${step.of - 1} step${step.of === 2 ? '' : 's'}. Configure a model provider (docs/models.md) for a real answer.`;
  return `${stepHeading(step)}: done (offline model, no provider configured).`;
}

/** Roughly four characters per token, the usual rule of thumb for English text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function findLastIndex<T>(items: T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
