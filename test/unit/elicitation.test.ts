import { describe, expect, it } from 'vitest';
import { elicitationReply, elicitationRequest, type RequestedSchema } from '../../src/shared/elicitation.ts';
import type { Answer, PendingRequest } from '../../src/shared/input-requests.ts';

const source = { server: 'tickets', tool: 'create', tool_call_id: 'call_1' };

/** The request a schema becomes, and the reply (or problem) an answer to it gives. */
function ask(schema: RequestedSchema, message = 'Which?') {
  const asked = elicitationRequest(message, schema, source)!;
  const request: PendingRequest = { requestId: 'req_1', ...asked, sensitive: false };
  return { asked, reply: (answer: Answer) => elicitationReply(request, answer) };
}

describe('elicitation requests as our input types', () => {
  it('no fields: a confirmation whose "no" declines', () => {
    const { asked, reply } = ask({ type: 'object', properties: {} });
    expect(asked.inputType).toBe('confirmation');
    expect(reply({ confirmed: true })).toEqual({ reply: { action: 'accept', content: {} } });
    expect(reply({ confirmed: false })).toEqual({ reply: { action: 'decline' } });
    expect(reply({ cancelled: true })).toEqual({ reply: { action: 'decline' } });
  });

  it('one titled enum: a choice of titles that sends the value', () => {
    const priority = {
      type: 'string',
      oneOf: [
        { const: 'p1', title: 'Urgent' },
        { const: 'p3', title: 'Later' },
      ],
    };
    const { asked, reply } = ask({ type: 'object', properties: { priority }, required: ['priority'] });
    expect(asked).toMatchObject({ inputType: 'choice', details: { choices: ['Urgent', 'Later'] } });
    expect(reply({ value: 'Later' })).toEqual({ reply: { action: 'accept', content: { priority: 'p3' } } });
    expect(reply({ value: 'Never' })).toMatchObject({ problem: { loc: ['value'] } });
  });

  it('one integer: a number checked against its range', () => {
    const count = { type: 'integer', minimum: 1, maximum: 5 };
    const { asked, reply } = ask({ type: 'object', properties: { count }, required: ['count'] });
    expect(asked.inputType).toBe('number');
    expect(reply({ value: '3' })).toEqual({ reply: { action: 'accept', content: { count: 3 } } });
    expect(reply({ value: '9' })).toMatchObject({ problem: { msg: expect.stringContaining('<= 5') } });
    expect(reply({ value: '2.5' })).toMatchObject({ problem: { msg: expect.stringContaining('integer') } });
  });

  it('several fields: a question each, formats checked, optional ones left out when empty', () => {
    const schema = {
      type: 'object',
      properties: { email: { type: 'string', format: 'email', title: 'Email' }, notify: { type: 'boolean' } },
      required: ['email'],
    };
    const { asked, reply } = ask(schema);
    expect(asked.details.questions).toEqual([
      { question: 'Email' },
      { question: 'notify (optional)', choices: ['yes', 'no'] },
    ]);
    const answers = (email: string, notify: string) => ({ answers: { Email: email, 'notify (optional)': notify } });
    expect(reply(answers('a@example.test', ''))).toEqual({
      reply: { action: 'accept', content: { email: 'a@example.test' } },
    });
    expect(reply(answers('a@example.test', 'no'))).toEqual({
      reply: { action: 'accept', content: { email: 'a@example.test', notify: false } },
    });
    expect(reply(answers('not an address', ''))).toMatchObject({ problem: { msg: expect.stringContaining('email') } });
  });

  it('a schema that is not a flat object is not asked; keywords outside the restricted schema are dropped', () => {
    expect(elicitationRequest('?', { type: 'array' }, source)).toBeUndefined();
    const code = { type: 'string', pattern: '^(a+)+$', maxLength: 8, properties: { x: {} } };
    const { asked } = ask({ type: 'object', properties: { code } as RequestedSchema['properties'] });
    expect(asked.details.elicitation!.requested_schema).toEqual({
      type: 'object',
      properties: { code: { type: 'string', maxLength: 8 } },
    });
  });
});
