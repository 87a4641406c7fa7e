import type { Answer } from './answer-schemas.ts';
import type { ElicitationDetails } from './elicitation.ts';

export type { Answer } from './answer-schemas.ts';

export const inputTypes = [
  'confirmation',
  'text',
  'number',
  'choice',
  'multiline',
  'plan_approval',
  'action_approval',
  'structured_questions',
] as const;
export type InputType = (typeof inputTypes)[number];

/** What the client is shown besides the prompt (choices, questions, plan, action). */
export interface RequestDetails {
  choices?: string[];
  questions?: { question: string; choices?: string[] }[];
  placeholder?: string;
  /** plan_approval: the proposed steps. */
  plan?: { steps: string[] };
  /** action_approval: the tool call waiting for a decision. */
  action?: { tool_name: string; tool_call_id: string; arguments: unknown; sensitive: boolean };
  approval_id?: string;
  /** A tool server asked (MCP elicitation): which, during which call, and the schema it asked for. */
  elicitation?: ElicitationDetails;
}

/** A question a run is waiting on (USER_INPUT_REQUIRED carries the same fields). */
export interface PendingRequest {
  requestId: string;
  inputType: InputType;
  prompt: string;
  details: RequestDetails;
  toolCallId?: string;
  /** Only owners and admins may answer (sensitive-class action approvals). */
  sensitive: boolean;
}

export function stripCancelled(answer: Answer): unknown {
  const { cancelled: _c, ...rest } = answer as Record<string, unknown>;
  return rest;
}

/** The answer as the agent is told it (a tool result, or what it hears about a gate). */
export function describeAnswer(request: PendingRequest, answer: Answer): Record<string, unknown> {
  if (answer.cancelled) return { status: 'dismissed', message: 'The user dismissed this request without answering.' };
  return { status: 'answered', input_type: request.inputType, ...(stripCancelled(answer) as Record<string, unknown>) };
}
