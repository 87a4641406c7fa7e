import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { PendingQuestion } from '../services/agent-calls.ts';
import type { Answer } from '../../shared/input-requests.ts';

type Form = ElicitRequestFormParams['requestedSchema'];

/**
 * The form an MCP client shows for a run's question (elicitation/create). Elicitation forms hold
 * flat fields of primitive types only, so each input type becomes the answer fields it needs:
 * approvals a boolean `approved` (plus feedback), questionnaires one field per question.
 */
export function elicitationFor(question: PendingQuestion): ElicitRequestFormParams {
  return { mode: 'form', message: messageOf(question), requestedSchema: formOf(question) };
}

function messageOf({ prompt, inputType, details }: PendingQuestion): string {
  if (inputType === 'plan_approval' && details.plan) {
    return `${prompt}\n\n${details.plan.steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}`;
  }
  if (inputType === 'action_approval' && details.action) {
    return `${prompt}\n\nTool: ${details.action.tool_name}\nArguments: ${JSON.stringify(details.action.arguments)}`;
  }
  return prompt;
}

function formOf({ inputType, details }: PendingQuestion): Form {
  switch (inputType) {
    case 'text':
    case 'multiline':
      return form({ value: { type: 'string', title: 'Answer' } }, ['value']);
    case 'number':
      return form({ value: { type: 'number', title: 'Answer' } }, ['value']);
    case 'choice':
      return form({ value: { type: 'string', title: 'Choice', enum: details.choices ?? [] } }, ['value']);
    case 'confirmation':
      return form(
        { confirmed: { type: 'boolean', title: 'Confirm' }, response_text: { type: 'string', title: 'Comment' } },
        ['confirmed'],
      );
    case 'plan_approval':
    case 'action_approval':
      return form(
        { approved: { type: 'boolean', title: 'Approve' }, feedback: { type: 'string', title: 'Feedback' } },
        ['approved'],
      );
    case 'structured_questions': {
      const questions = details.questions ?? [];
      const fields = Object.fromEntries(
        questions.map((q, i) => [
          `q${i + 1}`,
          q.choices?.length
            ? { type: 'string' as const, title: q.question, enum: q.choices }
            : { type: 'string' as const, title: q.question },
        ]),
      );
      return form(fields, Object.keys(fields));
    }
  }
}

function form(properties: Form['properties'], required: string[]): Form {
  return { type: 'object', properties, required };
}

/** The run's answer from the client's reply: declined or cancelled forms dismiss the question. */
export function answerOfElicitation(question: PendingQuestion, result: ElicitResult): Answer {
  if (result.action !== 'accept' || !result.content) return { cancelled: true };
  const content = result.content;
  const text = (key: string) => (typeof content[key] === 'string' ? (content[key] as string) : undefined);
  switch (question.inputType) {
    case 'text':
    case 'multiline':
    case 'choice':
      return { value: text('value') ?? '' };
    case 'number':
      return { value: String(content.value ?? '') };
    case 'confirmation': {
      const comment = text('response_text');
      return { confirmed: content.confirmed === true, ...(comment ? { response_text: comment } : {}) };
    }
    case 'plan_approval':
    case 'action_approval': {
      const feedback = text('feedback');
      return { approved: content.approved === true, ...(feedback ? { feedback } : {}) };
    }
    case 'structured_questions': {
      const questions = question.details.questions ?? [];
      return { answers: Object.fromEntries(questions.map((q, i) => [q.question, String(content[`q${i + 1}`] ?? '')])) };
    }
  }
}
