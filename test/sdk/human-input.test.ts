import {
  AgentRunClient,
  isEvent,
  userInputRequest,
  type InputAnswer,
  type InputType,
  type RunEvent,
} from '@agent-run/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { apiUrl } from '../support/http.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

const ask = (args: Record<string, unknown>) => `Please help.\n/tool request_user_input ${JSON.stringify(args)}`;

let tenant: Tenant;
let client: AgentRunClient;

beforeAll(async () => {
  tenant = await createTenant({ approval_required_tools: ['save_memory'], require_plan_approval: true });
  client = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.owner, agentId: tenant.agentId });
});

/**
 * Streams a run and answers its one input request through the SDK as soon as the stream asks,
 * after checking that `input.pending` names the same request.
 */
async function runAnswering<T extends InputType>(
  message: string,
  mode: 'fast' | 'deep',
  type: T,
  answer: InputAnswer<T>,
): Promise<RunEvent[]> {
  const stream = client.runs.stream({ message, mode });
  const events: RunEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    const request = userInputRequest(event);
    if (!request) continue;
    expect(request.input_type).toBe(type);
    const taskId = await stream.taskId;
    const pending = await client.input.pending(taskId);
    expect(pending.pending && pending.request.request_id).toBe(request.request_id);
    expect(await client.input.answer(taskId, { ...request, input_type: type }, answer)).toMatchObject({
      success: true,
    });
  }
  expect(events.filter(userInputRequest)).toHaveLength(1);
  expect(await client.input.pending(await stream.taskId)).toEqual({ pending: false });
  return events;
}

function toolResult(events: RunEvent[]): Record<string, unknown> {
  const result = events.find((e) => isEvent(e, 'TOOL_CALL_RESULT'));
  return JSON.parse(result && isEvent(result, 'TOOL_CALL_RESULT') ? result.content : '{}') as Record<string, unknown>;
}

describe('each of the 8 input types answered through client.input.answer', () => {
  it('confirmation', async () => {
    const events = await runAnswering(ask({ input_type: 'confirmation', prompt: 'Proceed?' }), 'fast', 'confirmation', {
      confirmed: true,
      response_text: 'go ahead',
    });
    expect(toolResult(events)).toMatchObject({ status: 'answered', confirmed: true, response_text: 'go ahead' });
  });

  it.each([
    ['text', { input_type: 'text', prompt: 'Your name?' }, 'Ada'],
    ['number', { input_type: 'number', prompt: 'How many?' }, '42'],
    ['choice', { input_type: 'choice', prompt: 'Which?', choices: ['a', 'b'] }, 'b'],
    ['multiline', { input_type: 'multiline', prompt: 'Describe' }, 'line 1\nline 2'],
  ] as const)('%s', async (type, args, value) => {
    const events = await runAnswering(ask(args), 'fast', type, { value });
    expect(toolResult(events)).toMatchObject({ status: 'answered', input_type: type, value });
    expect(events.at(-1)!.type).toBe('RUN_FINISHED');
  });

  it('structured_questions', async () => {
    const args = {
      input_type: 'structured_questions',
      prompt: 'A few questions',
      questions: [{ question: 'Size?' }, { question: 'Colour?', choices: ['red', 'blue'] }],
    };
    const answers = { 'Size?': 'L', 'Colour?': 'red' };
    const events = await runAnswering(ask(args), 'fast', 'structured_questions', { answers });
    expect(toolResult(events)).toMatchObject({ status: 'answered', answers });
  });

  it('action_approval (save_memory needs approval): approved, the memory is saved', async () => {
    const fact = `The SDK colour is teal ${Date.now()}`;
    const events = await runAnswering(
      `/tool save_memory ${JSON.stringify({ content: fact })}`,
      'fast',
      'action_approval',
      { approved: true, feedback: 'fine' },
    );
    expect(events.at(-1)!.type).toBe('RUN_FINISHED');
    const memories = await client.memories.list();
    expect(memories.memories.map((m) => m.content)).toContain(fact);
  });

  it('plan_approval (deep mode): approved with modified steps, which run', async () => {
    const events = await runAnswering('Write a report', 'deep', 'plan_approval', {
      approved: true,
      modified_steps: ['Draft', 'Polish'],
    });
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      result: { outcome: 'completed', plan: ['Draft', 'Polish'] },
    });
  });

  it('any type: { cancelled: true } dismisses the request', async () => {
    const events = await runAnswering(ask({ input_type: 'text', prompt: 'Anything?' }), 'fast', 'text', {
      cancelled: true,
    });
    expect(toolResult(events)).toMatchObject({ status: 'dismissed' });
  });
});

describe('approvals through the SDK', () => {
  it('lists a pending action approval and rejects it with approvals.respond', async () => {
    const run = await client.runs.start({ message: '/tool save_memory {"content":"never stored"}', mode: 'fast' });
    const approval = await eventually('the approval to be listed', async () => {
      const listed = (await client.approvals.list()).approvals.find((a) => a.run_id === run.id);
      expect(listed).toBeDefined();
      return listed!;
    });
    expect(approval).toMatchObject({ status: 'pending', kind: 'action', tool_name: 'save_memory' });
    expect(await client.approvals.respond(approval!.id, { decision: 'reject', feedback: 'no' })).toMatchObject({
      success: true,
      status: 'rejected',
    });
    expect(await client.runs.wait(run.id)).toMatchObject({ type: 'RUN_FINISHED' });
    expect((await client.approvals.list({ status: 'rejected' })).approvals.map((a) => a.id)).toContain(approval!.id);
  });
});
