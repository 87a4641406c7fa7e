import { beforeAll, describe, expect, it } from 'vitest';
import { call, exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import {
  answer,
  expectOneTerminal,
  expectReplays,
  readTaskStream,
  startBackgroundRun,
  types,
  waitForPending,
  type Caller,
} from '../support/runs.ts';
import { createTenant, testDb } from '../support/tenant.ts';

const ask = (args: Record<string, unknown>) => ({
  messages: [{ role: 'user', content: `Please help.\n/tool request_user_input ${JSON.stringify(args)}` }],
});

let member: Caller;

beforeAll(async () => {
  const tenant = await createTenant();
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

describe('user input over a live stream', () => {
  it('blocks with USER_INPUT_REQUIRED, refuses bad answers without changes, then continues in the same stream', async () => {
    const res = await call('POST', '/api/run', {
      token: member.token,
      agentId: member.agentId,
      body: ask({ input_type: 'choice', prompt: 'Pick a colour', choices: ['red', 'blue'] }),
    });
    const frames: { data: Record<string, unknown> }[] = [];
    let checks: Promise<void> | undefined;
    await readSse(res, (frame) => {
      frames.push(frame);
      if (frame.data.type === 'CUSTOM' && frame.data.name === 'USER_INPUT_REQUIRED')
        checks = answerCarefully(frame.data.data as Record<string, unknown>);
    });
    await checks;
    const events = withoutHeartbeats(frames as never);
    const required = events.find((f) => f.data.name === 'USER_INPUT_REQUIRED')!.data.data as Record<string, unknown>;
    expect(required).toMatchObject({
      input_type: 'choice',
      prompt: 'Pick a colour',
      choices: ['red', 'blue'],
      run_id: events[0]!.data.run_id,
    });
    const result = events.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data;
    expect(JSON.parse(result.content as string)).toMatchObject({ status: 'answered', value: 'blue' });
    expect(expectOneTerminal(events)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(types(events)).toContain('CUSTOM:SYSTEM_STATUS');
    await expectReplays(events[0]!.data.run_id as string, 'input-answered');
  });

  async function answerCarefully(required: Record<string, unknown>): Promise<void> {
    const taskId = (await testDb().run.findUniqueOrThrow({ where: { id: required.run_id as string } })).taskId;
    const pending = await waitForPending(member, taskId);
    expect(pending).toMatchObject({ request_id: required.request_id, input_type: 'choice', choices: ['red', 'blue'] });
    const base = { request_id: required.request_id, run_id: required.run_id, input_type: 'choice' };
    // The workflow's refusals (a choice not offered, another input type) are 422s in the spec's format, as the api's own are.
    await expectInvalid(
      await answer(member, taskId, { ...base, value: 'green' }),
      ['body', 'value'],
      /one of: red, blue/,
    );
    await expectInvalid(
      await answer(member, taskId, { ...base, input_type: 'text', value: 'blue' }),
      ['body', 'input_type'],
      /expects input_type choice/,
    );
    await expectInvalid(await answer(member, taskId, { ...base }), ['body', 'value']);
    await expectInvalid(await answer(member, taskId, { ...base, value: 'blue', extra: 1 }), ['body']);
    const stale = await answer(member, taskId, { ...base, request_id: 'req_stale', value: 'blue' });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { detail: string }).detail).toMatch(/not pending/);
    expect((await waitForPending(member, taskId)).request_id).toBe(required.request_id);
    const ok = await answer(member, taskId, { ...base, value: 'blue' });
    expect(await ok.json()).toEqual({ success: true, message: expect.any(String) });
    const again = await answer(member, taskId, { ...base, value: 'red' });
    expect(again.status).toBe(409);
  }
});

describe('every input type', () => {
  /** Each type: the request's arguments, a good answer, and a bad one with where its 422 points. */
  const cases: [
    string,
    Record<string, unknown>,
    Record<string, unknown>,
    { answer: Record<string, unknown>; loc: string[] }?,
  ][] = [
    [
      'confirmation',
      { input_type: 'confirmation', prompt: 'Proceed?' },
      { confirmed: true, response_text: 'go ahead' },
      { answer: { confirmed: 'yes' }, loc: ['body', 'confirmed'] },
    ],
    [
      'text',
      { input_type: 'text', prompt: 'Your name?' },
      { value: 'Ada' },
      { answer: { value: 7 }, loc: ['body', 'value'] },
    ],
    [
      'number',
      { input_type: 'number', prompt: 'How many?' },
      { value: '42' },
      { answer: { value: 'many' }, loc: ['body', 'value'] },
    ],
    [
      'choice',
      { input_type: 'choice', prompt: 'Which?', choices: ['a', 'b'] },
      { value: 'a' },
      { answer: { value: 'c' }, loc: ['body', 'value'] },
    ],
    [
      'multiline',
      { input_type: 'multiline', prompt: 'Describe' },
      { value: 'line 1\nline 2' },
      { answer: {}, loc: ['body', 'value'] },
    ],
    [
      'structured_questions',
      {
        input_type: 'structured_questions',
        prompt: 'A few questions',
        questions: [{ question: 'Size?' }, { question: 'Colour?', choices: ['red', 'blue'] }],
      },
      { answers: { 'Size?': 'L', 'Colour?': 'red' } },
      { answer: { answers: { 'Size?': 'L' } }, loc: ['body', 'answers'] },
    ],
  ];

  it.each(cases)('%s: validates the answer, and the agent gets it', async (type, args, good, bad) => {
    const { taskId, runId } = await startBackgroundRun(member, ask(args));
    const pending = await waitForPending(member, taskId);
    expect(pending.input_type).toBe(type);
    const base = { request_id: pending.request_id, run_id: runId, input_type: type };
    if (bad) await expectInvalid(await answer(member, taskId, { ...base, ...bad.answer }), bad.loc);
    const ok = await answer(member, taskId, { ...base, ...good });
    expect(ok.status, await ok.clone().text()).toBe(200);
    const frames = await readTaskStream(member, taskId);
    const result = JSON.parse(frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data.content as string);
    expect(result).toMatchObject({ status: 'answered', input_type: type, ...good });
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    const stored = await testDb().inputRequest.findUniqueOrThrow({ where: { id: pending.request_id } });
    expect(stored).toMatchObject({ status: 'answered', answer: good });
  });

  it('cancelled: true dismisses the request and the agent is told', async () => {
    const { taskId, runId } = await startBackgroundRun(member, ask({ input_type: 'text', prompt: 'Anything?' }));
    const pending = await waitForPending(member, taskId);
    const ok = await answer(member, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'text',
      cancelled: true,
    });
    expect(ok.status).toBe(200);
    const frames = await readTaskStream(member, taskId);
    expect(JSON.parse(frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data.content as string)).toMatchObject({
      status: 'dismissed',
    });
    expect((await testDb().inputRequest.findUniqueOrThrow({ where: { id: pending.request_id } })).status).toBe(
      'dismissed',
    );
    const after = await call('GET', `/api/tasks/${taskId}/pending-input`, {
      token: member.token,
      agentId: member.agentId,
    });
    expect(await after.json()).toEqual({ pending: false });
    await expectReplays(runId, 'input-dismissed');
  });

  it('ask_user_question becomes a choice or a text request', async () => {
    const body = {
      messages: [
        { role: 'user', content: '/tool ask_user_question {"question":"Tea or coffee?","choices":["tea","coffee"]}' },
      ],
    };
    const { taskId, runId } = await startBackgroundRun(member, body);
    const pending = await waitForPending(member, taskId);
    expect(pending).toMatchObject({ input_type: 'choice', prompt: 'Tea or coffee?', choices: ['tea', 'coffee'] });
    expect(
      (
        await answer(member, taskId, {
          request_id: pending.request_id,
          run_id: runId,
          input_type: 'choice',
          value: 'tea',
        })
      ).status,
    ).toBe(200);
    expect(expectOneTerminal(await readTaskStream(member, taskId)).type).toBe('RUN_FINISHED');
  });

  it('refuses answers for another task, for a finished run, and from a user who cannot see the task', async () => {
    const { taskId, runId } = await startBackgroundRun(member, ask({ input_type: 'text', prompt: 'Q?' }));
    const pending = await waitForPending(member, taskId);
    const other = await startBackgroundRun(member, { messages: [{ role: 'user', content: 'hello' }] });
    const body = { request_id: pending.request_id, run_id: runId, input_type: 'text', value: 'x' };
    expect((await answer(member, other.taskId, body)).status).toBe(404);
    expect((await answer(member, taskId, body)).status).toBe(200);
    await readTaskStream(member, taskId);
    expect((await answer(member, taskId, body)).status).toBe(409);
  });
});

/** A 422 in the spec's format: `detail` is a list of `{loc, msg, type}`, the first at `loc`. */
async function expectInvalid(res: Response, loc: string[], msg?: RegExp): Promise<void> {
  expect(res.status).toBe(422);
  const { detail } = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
  expect(detail).toEqual(
    expect.arrayContaining([{ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) }]),
  );
  expect(detail[0]!.loc).toEqual(loc);
  if (msg) expect(detail[0]!.msg).toMatch(msg);
}
