import { describe, expect, it } from 'vitest';
import { buildSpans, formatDuration, type Span, type TraceRecord } from '../../console/src/trace/spans.ts';

/** Events at the given milliseconds after 0, stored in order: `[ms, event]`. */
function history(...events: [number, Record<string, unknown>][]): TraceRecord[] {
  return events.map(([at, event], i) => ({
    id: `run_1:${i + 1}`,
    payload: { timestamp: 1_000_000 + at, ...event } as TraceRecord['payload'],
  }));
}

const status = (value: string) => ({ type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/run_status', value }] });
const custom = (name: string, data: Record<string, unknown>) => ({ type: 'CUSTOM', name, data });
const text = (id: string, ...deltas: string[]) => [
  { type: 'TEXT_MESSAGE_START', message_id: id, role: 'assistant' },
  ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', message_id: id, delta })),
  { type: 'TEXT_MESSAGE_END', message_id: id },
];
const call = (id: string, name: string, args: unknown) => [
  { type: 'TOOL_CALL_START', tool_call_id: id, tool_call_name: name, metadata: { step: 0 } },
  { type: 'TOOL_CALL_ARGS', tool_call_id: id, delta: JSON.stringify(args) },
  { type: 'TOOL_CALL_END', tool_call_id: id },
];
const at = (ms: number, events: Record<string, unknown>[]) =>
  events.map((e): [number, Record<string, unknown>] => [ms, e]);
const field = (span: Span | undefined, label: string) => span?.fields.find((f) => f.label === label)?.value;
const duration = (span: Span | undefined) => (span?.end ?? NaN) - (span?.start ?? NaN);

/** A fast run: save_memory behind an approval, then a question the agent asks, then the answer. */
const fastRun = history(
  [0, { type: 'RUN_STARTED', run_id: 'run_1', mode: 'fast', routing_reason: 'asked' }],
  [100, status('executing')],
  [160, custom('THOUGHT', { step: 0, text: 'Saving it.' })],
  ...at(160, text('m1', 'Calling ', 'save_memory.')),
  ...at(170, call('c1', 'save_memory', { content: 'likes tea' })),
  [200, status('awaiting_approval')],
  [
    200,
    custom('USER_INPUT_REQUIRED', {
      request_id: 'r1',
      input_type: 'action_approval',
      prompt: 'Approve?',
      action: { tool_name: 'save_memory', tool_call_id: 'c1' },
    }),
  ],
  [1200, custom('SYSTEM_STATUS', { status: 'answered', request_id: 'r1', approved: true, answered_by: 'usr_owner' })],
  [1210, status('executing')],
  [1500, { type: 'TOOL_CALL_RESULT', tool_call_id: 'c1', content: '{"memory_id":"mem_1"}' }],
  ...at(1600, call('c2', 'request_user_input', { input_type: 'text', prompt: 'Which branch?' })),
  [
    1650,
    custom('USER_INPUT_REQUIRED', {
      request_id: 'r2',
      input_type: 'text',
      prompt: 'Which branch?',
      tool_call_id: 'c2',
    }),
  ],
  [4650, custom('SYSTEM_STATUS', { status: 'answered', request_id: 'r2', value: 'main', answered_by: 'usr_member' })],
  [4700, { type: 'TOOL_CALL_RESULT', tool_call_id: 'c2', content: '{"status":"answered","value":"main"}' }],
  [4800, text('m3', 'Done')[0]!],
  [4850, text('m3', 'Done')[1]!],
  [4900, text('m3', 'Done')[2]!],
  [
    4900,
    custom('USAGE', {
      input_tokens: 60,
      output_tokens: 9,
      credits: 1,
      steps: [
        { step: 'main:0', input_tokens: 10, output_tokens: 3 },
        { step: 'main:1', input_tokens: 20, output_tokens: 3 },
        { step: 'main:2', input_tokens: 30, output_tokens: 3 },
      ],
    }),
  ],
  [4900, status('completed')],
  [4900, { type: 'RUN_FINISHED', run_id: 'run_1', result: { text: 'Done' } }],
);

describe('buildSpans (the run trace of the console)', () => {
  it('makes a span per model step, tool call and wait, with their durations', () => {
    const spans = buildSpans(fastRun);
    expect(spans.map((s) => [s.kind, s.label])).toEqual([
      ['run', 'Run'],
      ['model', 'Model step → save_memory'],
      ['wait', 'Approval of save_memory'],
      ['tool', 'save_memory'],
      ['model', 'Model step → request_user_input'],
      ['tool', 'request_user_input'],
      ['wait', 'Input: Which branch?'],
      ['model', 'Model step'],
    ]);
    const [run, step1, approval, save, step2, ask, question, answer] = spans;
    expect(duration(run)).toBe(4900);
    expect(run!.outcome).toBe('ok');
    // The first step starts when the run began executing; its first output came 60 ms later.
    expect([step1!.start - 1_000_000, duration(step1)]).toEqual([100, 70]);
    expect(field(step1, 'Time to first token')).toBe('60 ms');
    expect(field(step1, 'Thinking')).toBe('Saving it.');
    expect(field(step1, 'Message')).toBe('Calling save_memory.');
    expect(field(step1, 'Tokens')).toBe('10 in, 3 out');
    // An approved call runs from its approval to its result; the approval waited a second, answered by the owner.
    expect([save!.start - 1_000_000, duration(save)]).toEqual([1200, 300]);
    expect(field(save, 'Arguments')).toBe('{\n  "content": "likes tea"\n}');
    expect(field(save, 'Result')).toBe('{\n  "memory_id": "mem_1"\n}');
    expect(save!.eventIds).toEqual(['run_1:8', 'run_1:9', 'run_1:10', 'run_1:15']);
    expect(duration(approval)).toBe(1000);
    expect(field(approval, 'Answered by')).toBe('usr_owner');
    expect(field(approval, 'Answer')).toContain('"approved": true');
    // A question the agent asks is its tool call's own work: the call spans the wait.
    expect(step2!.start - 1_000_000).toBe(1500);
    expect([ask!.start - 1_000_000, duration(ask)]).toEqual([1600, 3100]);
    expect(duration(question)).toBe(3000);
    expect(field(question, 'Answered by')).toBe('usr_member');
    expect(field(answer, 'Message')).toBe('Done');
    expect(field(answer, 'Tokens')).toBe('30 in, 3 out');
    expect(field(run, 'Tokens')).toBe('60 in, 9 out');
  });

  it('keeps what is still going open in a live run, and closes it when the run ends', () => {
    const live = buildSpans(fastRun.slice(0, 19)); // asked the question, no answer yet
    const waiting = live.filter((s) => s.end === undefined).map((s) => s.kind);
    expect(waiting).toEqual(['run', 'tool', 'wait']);
    const streaming = buildSpans(fastRun.slice(0, 5)); // the first message has begun, not ended
    expect(streaming.find((s) => s.kind === 'model')!.end).toBeUndefined();
    const cancelled = buildSpans([
      ...fastRun.slice(0, 19),
      { id: 'run_1:99', payload: { type: 'RUN_ERROR', code: 'CANCELLED', message: 'Cancelled', timestamp: 1_010_000 } },
    ]);
    expect(cancelled.every((s) => s.end !== undefined)).toBe(true);
    expect(cancelled[0]!.outcome).toBe('error');
    expect(field(cancelled[0], 'Error')).toBe('CANCELLED: Cancelled');
  });

  it('nests a deep run’s work in its plan steps, after the planning span', () => {
    const spans = buildSpans(
      history(
        [0, { type: 'RUN_STARTED', mode: 'deep' }],
        [10, status('planning')],
        [
          300,
          custom('PLAN_CREATED', {
            steps: [
              { index: 0, title: 'Look' },
              { index: 1, title: 'Sum up' },
            ],
          }),
        ],
        [310, status('executing')],
        [320, { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/plan/steps/0/status', value: 'in_progress' }] }],
        ...at(400, text('a', 'Looked')),
        [500, { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/plan/steps/0/status', value: 'completed' }] }],
        [510, { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/plan/steps/1/status', value: 'in_progress' }] }],
        ...at(600, text('b', 'Summed')),
        [
          700,
          custom('USAGE', {
            steps: [
              { step: 'plan', input_tokens: 5, output_tokens: 5 },
              { step: 'plan-step:0:0', input_tokens: 1, output_tokens: 1 },
              { step: 'plan-step:1:0', input_tokens: 2, output_tokens: 2 },
            ],
          }),
        ],
      ),
    );
    expect(spans.map((s) => [s.kind, s.label, s.depth])).toEqual([
      ['run', 'Run', 0],
      ['planning', 'Planning', 0],
      ['plan_step', 'Step 1: Look', 0],
      ['model', 'Model step', 1],
      ['plan_step', 'Step 2: Sum up', 0],
      ['model', 'Model step', 1],
    ]);
    expect(duration(spans[1])).toBe(290);
    expect(field(spans[1], 'Tokens')).toBe('5 in, 5 out');
    expect(field(spans[1], 'Plan')).toBe('1. Look\n2. Sum up');
    expect(duration(spans[2])).toBe(180);
    expect(spans[4]!.end).toBeUndefined(); // the second step is still running
    expect(field(spans[5], 'Step')).toBe('plan-step:1:0');
  });

  it('tells tool servers, a server’s tool, retries, pauses, comments and the sandbox', () => {
    const spans = buildSpans(
      history(
        [0, { type: 'RUN_STARTED', mode: 'fast' }],
        [10, custom('SYSTEM_STATUS', { status: 'tool_server_connecting', server: 'docs' })],
        [90, custom('SYSTEM_STATUS', { status: 'tool_server_ready', server: 'docs', tool_count: 2 })],
        [100, custom('SYSTEM_STATUS', { status: 'comment_applied', content: 'Be brief' })],
        ...at(200, text('dropped', 'Half an ans')),
        [
          300,
          custom('SYSTEM_STATUS', {
            status: 'retrying',
            operation: 'model_step',
            attempt: 2,
            discarded_message_ids: ['dropped'],
          }),
        ],
        ...at(400, call('c1', 'docs__search', { q: 'x' })),
        [450, status('paused')],
        [1450, status('executing')],
        [1500, custom('SYSTEM_STATUS', { status: 'sandbox_started', workspace: '/workspace' })],
        [1600, custom('SYSTEM_STATUS', { status: 'retrying', operation: 'tool_call', tool_call_id: 'c1', attempt: 2 })],
        [1900, { type: 'TOOL_CALL_RESULT', tool_call_id: 'c1', content: '{"error":{"code":"TOOL_ERROR"}}' }],
      ),
    );
    const kinds = spans.map((s) => s.kind);
    expect(kinds).toEqual(['run', 'tool_server', 'comment', 'model', 'pause', 'tool', 'sandbox']);
    const [, server, comment, model, pause, tool, sandbox] = spans;
    expect([server!.label, duration(server), field(server, new Date(1_000_090).toISOString())]).toEqual([
      'Tool server docs',
      80,
      'Tool server docs: ready, 2 tools',
    ]);
    expect([comment!.label, duration(comment)]).toEqual(['Comment: Be brief', 0]);
    // The failed attempt's text is not what the model said; the step counts the retry.
    expect(field(model, 'Retries')).toBe('1');
    expect(field(model, 'Message')).toBeUndefined();
    expect([model!.start - 1_000_000, model!.end! - 1_000_000]).toEqual([100, 400]);
    expect([tool!.label, field(tool, 'Tool server'), field(tool, 'Retries'), tool!.outcome]).toEqual([
      'docs__search (tool server docs)',
      'docs',
      '1',
      'error',
    ]);
    expect([tool!.start - 1_000_000, duration(pause), pause!.depth]).toEqual([1450, 1000, 0]);
    expect([sandbox!.label, field(sandbox, 'workspace')]).toEqual(['Sandbox started', '/workspace']);
  });

  it('says durations in a unit people read', () => {
    expect([0, 850, 1234, 12_400, 125_000, 3_720_000].map(formatDuration)).toEqual([
      '0 ms',
      '850 ms',
      '1.2 s',
      '12 s',
      '2 min 05 s',
      '1 h 02 min',
    ]);
  });
});
