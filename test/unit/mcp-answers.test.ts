import { describe, expect, it } from 'vitest';
import { answerOfElicitation, elicitationFor } from '../../src/api/mcp/elicitation.ts';
import { toolNameOf } from '../../src/api/mcp/agent-tools.ts';
import type { PendingQuestion } from '../../src/api/services/agent-calls.ts';
import { answerFromText } from '../../src/shared/text-answers.ts';

const question = (
  inputType: PendingQuestion['inputType'],
  details: PendingQuestion['details'] = {},
): PendingQuestion => ({
  requestId: 'req_1',
  runId: 'run_1',
  taskId: 'task_1',
  inputType,
  prompt: 'Well?',
  details,
});

describe('answers from a plain-text reply (MCP clients without elicitation)', () => {
  it('takes a choice case-insensitively and refuses one not offered', () => {
    const q = question('choice', { choices: ['Red', 'Blue'] });
    expect(answerFromText(q, ' blue ')).toEqual({ value: 'Blue' });
    expect(answerFromText(q, 'green')).toBe('Reply with one of: Red, Blue');
  });

  it('reads yes or no for confirmations and approvals, keeping the words as comment or feedback', () => {
    expect(answerFromText(question('confirmation'), 'yes please')).toEqual({
      confirmed: true,
      response_text: 'yes please',
    });
    expect(answerFromText(question('action_approval'), 'No, too risky')).toEqual({
      approved: false,
      feedback: 'No, too risky',
    });
    expect(typeof answerFromText(question('plan_approval'), 'maybe')).toBe('string');
  });

  it('answers a single structured question with the text, several with a JSON object', () => {
    expect(answerFromText(question('structured_questions', { questions: [{ question: 'Name?' }] }), 'Ada')).toEqual({
      answers: { 'Name?': 'Ada' },
    });
    const two = question('structured_questions', { questions: [{ question: 'A?' }, { question: 'B?' }] });
    expect(answerFromText(two, '{"A?":"1","B?":2}')).toEqual({ answers: { 'A?': '1', 'B?': '2' } });
    expect(typeof answerFromText(two, 'just text')).toBe('string');
  });
});

describe('elicitation forms', () => {
  it('offers choices as an enum and maps the accepted value back', () => {
    const q = question('choice', { choices: ['red', 'blue'] });
    expect(elicitationFor(q).requestedSchema.properties.value).toMatchObject({ type: 'string', enum: ['red', 'blue'] });
    expect(answerOfElicitation(q, { action: 'accept', content: { value: 'red' } })).toEqual({ value: 'red' });
  });

  it('makes an approval a boolean; a decline or cancel dismisses the question', () => {
    const q = question('action_approval', {
      action: { tool_name: 't', tool_call_id: 'c', arguments: {}, sensitive: false },
    });
    expect(elicitationFor(q).requestedSchema.properties.approved).toMatchObject({ type: 'boolean' });
    expect(answerOfElicitation(q, { action: 'accept', content: { approved: true } })).toEqual({ approved: true });
    expect(answerOfElicitation(q, { action: 'decline' })).toEqual({ cancelled: true });
    expect(answerOfElicitation(q, { action: 'cancel' })).toEqual({ cancelled: true });
  });

  it('gives each structured question a field and maps the fields back by question text', () => {
    const q = question('structured_questions', {
      questions: [{ question: 'A?' }, { question: 'B?', choices: ['x', 'y'] }],
    });
    const form = elicitationFor(q).requestedSchema;
    expect(form.required).toEqual(['q1', 'q2']);
    expect(form.properties.q2).toMatchObject({ title: 'B?', enum: ['x', 'y'] });
    expect(answerOfElicitation(q, { action: 'accept', content: { q1: 'one', q2: 'y' } })).toEqual({
      answers: { 'A?': 'one', 'B?': 'y' },
    });
  });
});

describe('tool names', () => {
  it('keeps MCP’s allowed characters and length', () => {
    expect(toolNameOf('Support bot (EU)!')).toBe('Support_bot_EU');
    expect(toolNameOf('é')).toBe('agent');
    expect(toolNameOf('x'.repeat(100))).toHaveLength(64);
  });
});
