import type { PendingRequest } from '../shared/input-requests.ts';
import type { ToolCall } from '../shared/run-workflow-types.ts';
import { formatIssues } from '../shared/zod-issues.ts';
import { humanTools } from './lazy-modules.ts';
import type { RunState } from './run-state.ts';

/** The request a human-input tool call asks, or the argument error the model is shown. */
export function humanRequestFor(
  state: RunState,
  call: ToolCall,
): PendingRequest | { error: { code: string; message: string } } {
  const { askUserQuestionTool, requestUserInputTool } = humanTools();
  const requestId = state.newId('req');
  if (call.name === askUserQuestionTool.name) {
    const parsed = askUserQuestionTool.input.safeParse(call.args);
    if (!parsed.success) return { error: { code: 'INVALID_ARGUMENTS', message: parsed.error.issues[0]!.message } };
    const { question, choices } = parsed.data;
    return {
      requestId,
      inputType: choices?.length ? 'choice' : 'text',
      prompt: question,
      details: choices?.length ? { choices } : {},
      toolCallId: call.id,
      sensitive: false,
    };
  }
  const parsed = requestUserInputTool.input.safeParse(call.args);
  if (!parsed.success) {
    return {
      error: { code: 'INVALID_ARGUMENTS', message: formatIssues(parsed.error.issues, { atRoot: '' }).join('; ') },
    };
  }
  const { input_type, prompt, choices, questions, placeholder } = parsed.data;
  return {
    requestId,
    inputType: input_type,
    prompt,
    details: {
      ...(choices ? { choices } : {}),
      ...(questions ? { questions } : {}),
      ...(placeholder ? { placeholder } : {}),
    },
    toolCallId: call.id,
    sensitive: false,
  };
}
