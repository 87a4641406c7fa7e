import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@agent-run/client';
import { approvalAction, describeAction, planSteps } from '../../console/src/approval-action.ts';
import { runControlsFor } from '../../console/src/run-status.ts';
import { applyEvent, emptyView, withNothingPending, type RunView } from '../../console/src/chat/run-view.ts';

describe('what an approval asks, in words', () => {
  it('puts the command of run_command first, then its time limit and the rest', () => {
    expect(describeAction('run_command', { command: 'npm test', timeout_seconds: 60, env: { CI: '1' } })).toEqual({
      title: 'Run a command in the sandbox',
      fields: [
        { name: 'Command', value: 'npm test', block: true },
        { name: 'Time limit', value: '60 s' },
        { name: 'env', value: '{"CI":"1"}' },
      ],
    });
  });

  it("shows write_file's path and the start of its content, saying what was left out", () => {
    const content = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const { title, fields } = describeAction('write_file', { path: 'src/a.ts', content });
    expect(title).toBe('Write a file in the sandbox');
    expect(fields[0]).toEqual({ name: 'Path', value: 'src/a.ts' });
    expect(fields[1]!.value.split('\n').slice(0, 12)).toEqual(content.split('\n').slice(0, 12));
    expect(fields[1]!.value).toMatch(/… \(\d+ more characters, 20 lines in all\)$/);
    expect(describeAction('write_file', { path: 'b', content: 'short' }).fields[1]!.value).toBe('short');
  });

  it("names a tool server's tool and lists its arguments, long ones cut", () => {
    const { title, fields } = describeAction('linear__create_issue', { title: 'Bug', body: 'x'.repeat(400) });
    expect(title).toBe('Call create_issue on tool server linear');
    expect(fields[0]).toEqual({ name: 'title', value: 'Bug' });
    expect(fields[1]!.value).toHaveLength(301);
    expect(describeAction('save_memory', { content: 'likes tea' })).toEqual({
      title: 'Call save_memory',
      fields: [{ name: 'content', value: 'likes tea' }],
    });
  });

  it('reads the action and the plan out of stored details', () => {
    expect(approvalAction(null, { action: { tool_name: 'run_command', arguments: { command: 'ls' } } })).toEqual({
      tool: 'run_command',
      args: { command: 'ls' },
    });
    expect(approvalAction('x', {})).toEqual({ tool: 'x', args: {} });
    expect(planSteps({ plan: { steps: ['Draft', { title: 'Polish' }] } })).toEqual(['Draft', 'Polish']);
  });
});

describe('controls only where they apply', () => {
  it('pauses an executing run that waits for no answer, resumes a paused one, cancels any run not ended', () => {
    expect(runControlsFor('executing')).toEqual({ pause: true, resume: false, cancel: true, comment: true });
    expect(runControlsFor('executing', true)).toMatchObject({ pause: false, cancel: true });
    expect(runControlsFor('awaiting_approval')).toMatchObject({ pause: false, resume: false, cancel: true });
    expect(runControlsFor('paused')).toEqual({ pause: false, resume: true, cancel: true, comment: false });
    for (const ended of ['completed', 'failed', 'cancelled'] as const)
      expect(runControlsFor(ended)).toEqual({ pause: false, resume: false, cancel: false, comment: false });
  });
});

describe("the chat's run status", () => {
  const events = (view: RunView, ...list: unknown[]) =>
    list.reduce<RunView>((v, e) => applyEvent(v, e as RunEvent), view);

  it('follows the /run_status moves of the events and ends with the terminal event', () => {
    const started = events(
      emptyView,
      { type: 'RUN_STARTED', run_id: 'r', thread_id: 't', mode: 'fast', routing_reason: '' },
      { type: 'STATE_SNAPSHOT', state: { run_status: 'pending', mode: 'fast' } },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/run_status', value: 'executing' }] },
    );
    expect(started.status).toBe('executing');
    const paused = events(started, {
      type: 'STATE_DELTA',
      delta: [{ op: 'replace', path: '/run_status', value: 'paused' }],
    });
    expect(paused.status).toBe('paused');
    expect(events(paused, { type: 'RUN_ERROR', run_id: 'r', code: 'CANCELLED', message: 'stop' }).status).toBe(
      'cancelled',
    );
    expect(events(started, { type: 'RUN_FINISHED', run_id: 'r', result: {} }).status).toBe('completed');
  });

  it('a question answered elsewhere no longer waits', () => {
    const waiting: RunView = {
      ...emptyView,
      phase: 'waiting',
      items: [
        {
          kind: 'input',
          id: 'q',
          answered: false,
          request: { request_id: 'q', run_id: 'r', input_type: 'text', prompt: 'Name?' } as never,
        },
      ],
    };
    const after = withNothingPending(waiting);
    expect(after.phase).toBe('running');
    expect(after.items[0]).toMatchObject({ answered: true });
  });
});
