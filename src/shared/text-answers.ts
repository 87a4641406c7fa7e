import type { Answer, InputType, RequestDetails } from './input-requests.ts';

/** A question as a client that can only send text sees it. */
export interface TextQuestion {
  inputType: InputType;
  details: RequestDetails;
}

const YES = /^\s*(y|yes|ok|okay|sure|approve|approved|confirm|confirmed|accept|true)\b/i;
const NO = /^\s*(n|no|nope|deny|denied|reject|rejected|decline|false)\b/i;

/**
 * The answer a plain-text reply gives to a pending question, for clients that cannot show a form
 * (an MCP client without elicitation answers by calling the agent again with the reply as its
 * message). Returns a string saying what a valid reply looks like when the text does not fit.
 */
export function answerFromText(question: TextQuestion, text: string): Answer | string {
  const reply = text.trim();
  switch (question.inputType) {
    case 'text':
    case 'multiline':
    case 'number':
      return { value: reply };
    case 'choice': {
      const choices = question.details.choices ?? [];
      const match = choices.find((c) => c.toLowerCase() === reply.toLowerCase());
      return match !== undefined ? { value: match } : `Reply with one of: ${choices.join(', ')}`;
    }
    case 'confirmation': {
      const confirmed = yesOrNo(reply);
      if (confirmed === undefined) return 'Reply with yes or no (anything after it is passed on as a comment)';
      return { confirmed, ...(reply ? { response_text: reply } : {}) };
    }
    case 'plan_approval':
    case 'action_approval': {
      const approved = yesOrNo(reply);
      if (approved === undefined) return 'Reply with yes (approve) or no (reject); anything after it is feedback';
      return { approved, ...(reply ? { feedback: reply.slice(0, 4000) } : {}) };
    }
    case 'structured_questions': {
      const questions = question.details.questions ?? [];
      if (questions.length === 1) return { answers: { [questions[0]!.question]: reply } };
      const parsed = parseObject(reply);
      return parsed ?? 'Reply with a JSON object that maps each question to its answer';
    }
  }
}

function yesOrNo(reply: string): boolean | undefined {
  if (YES.test(reply)) return true;
  if (NO.test(reply)) return false;
  return undefined;
}

function parseObject(reply: string): Answer | undefined {
  try {
    const value: unknown = JSON.parse(reply);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return { answers: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) };
  } catch {
    return undefined;
  }
}
