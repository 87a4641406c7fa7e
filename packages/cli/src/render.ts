/**
 * Text-mode rendering of a run's events: the answer's deltas to stdout, tool calls, status moves
 * and other progress as dim lines on stderr, a spinner between them.
 */
import { runStatusLabel, type RunEvent } from '@agent-run/client';
import type { Terminal } from './terminal.ts';

const short = (text: string, max = 100) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/** `1 credit`, `2 credits` (a missing count shows as `? credits`). */
const counted = (n: unknown, noun: string) => `${typeof n === 'number' ? n : '?'} ${noun}${n === 1 ? '' : 's'}`;

/** Renders one run's events; keeps the tool calls' names and arguments between their events. */
export class EventRenderer {
  private readonly tools = new Map<string, { name: string; args: string }>();

  constructor(private readonly term: Terminal) {}

  render(event: RunEvent): void {
    switch (event.type) {
      case 'RUN_STARTED':
        this.term.progress(`run ${event.run_id}  task ${event.thread_id}  mode ${event.mode}`);
        break;
      case 'TEXT_MESSAGE_START':
        break;
      case 'TEXT_MESSAGE_CONTENT':
        this.term.text(event.delta);
        return;
      case 'TEXT_MESSAGE_END':
        this.term.endText();
        break;
      case 'TOOL_CALL_START':
        this.tools.set(event.tool_call_id, { name: event.tool_call_name, args: '' });
        break;
      case 'TOOL_CALL_ARGS': {
        const call = this.tools.get(event.tool_call_id);
        if (call) call.args += event.delta;
        return;
      }
      case 'TOOL_CALL_END': {
        const call = this.tools.get(event.tool_call_id);
        this.term.progress(`→ ${call?.name ?? 'tool'} ${short(call?.args ?? '')}`);
        break;
      }
      case 'TOOL_CALL_RESULT': {
        const call = this.tools.get(event.tool_call_id);
        this.term.progress(`← ${call?.name ?? 'tool'} ${short(event.content)}`);
        break;
      }
      case 'STATE_DELTA':
        this.renderDelta(event.delta);
        break;
      case 'CUSTOM':
        // Reasoning arrives in many small chunks: the spinner says it, no line each.
        if (event.name === 'THOUGHT') return this.term.wait('thinking');
        this.renderCustom(event.name, event.data);
        break;
      case 'RUN_FINISHED':
        this.term.endText();
        this.term.progress('✓ run finished');
        return;
      case 'RUN_ERROR':
        this.term.endText();
        this.term.note(
          `✗ run ${event.code === 'CANCELLED' ? 'cancelled' : 'failed'}: ${event.message} (${event.code})`,
          'red',
        );
        return;
      default:
        break;
    }
    this.term.wait('working');
  }

  private renderDelta(delta: unknown): void {
    for (const op of Array.isArray(delta) ? (delta as { path?: string; value?: unknown }[]) : []) {
      if (op.path === '/run_status') this.term.progress(`status: ${runStatusLabel(str(op.value))}`);
      const step = /^\/plan\/steps\/(\d+)\/status$/.exec(op.path ?? '');
      if (step) this.term.progress(`plan step ${Number(step[1]) + 1}: ${str(op.value)}`);
    }
  }

  private renderCustom(name: string, data: Record<string, unknown>): void {
    switch (name) {
      case 'PLAN_CREATED': {
        const steps = Array.isArray(data.steps) ? data.steps : [];
        this.term.progress(
          `plan:\n${steps.map((s, i) => `  ${i + 1}. ${str((s as { title?: unknown }).title ?? s)}`).join('\n')}`,
        );
        break;
      }
      case 'USAGE':
        this.term.progress(`usage: ${counted(data.total_tokens, 'token')}, ${counted(data.credits, 'credit')}`);
        break;
      case 'SYSTEM_STATUS':
        if (data.status === 'retrying') {
          const dropped = Array.isArray(data.discarded_message_ids) && data.discarded_message_ids.length > 0;
          this.term.progress(
            `retrying ${str(data.operation)} (attempt ${str(data.attempt)})${dropped ? ': text of the failed attempt above is discarded' : ''}`,
          );
          break;
        }
        this.term.progress(`status: ${str(data.status)}${data.message ? ` ${short(str(data.message))}` : ''}`);
        break;
      case 'STOPPING':
        this.term.progress('stopping…');
        break;
      case 'USER_INPUT_REQUIRED':
        break;
      default:
        if (name.startsWith('ARTIFACT_'))
          this.term.progress(`${name.slice(9).toLowerCase()} artifact ${str(data.title ?? data.artifact_id)}`);
        else this.term.progress(name.toLowerCase());
    }
  }
}
