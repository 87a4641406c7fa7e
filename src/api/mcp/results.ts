import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentCallOutcome } from '../services/agent-calls.ts';

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A call's result from its run's outcome: the final text and structured content. */
export function resultOf(outcome: AgentCallOutcome): CallToolResult {
  const structured = {
    task_id: outcome.taskId,
    run_id: outcome.runId,
    status: outcome.status,
    usage: outcome.usage,
    artifacts: outcome.artifacts,
  };
  switch (outcome.status) {
    case 'completed':
      return { content: [{ type: 'text', text: outcome.text }], structuredContent: structured };
    case 'failed':
    case 'cancelled':
      return {
        content: [{ type: 'text', text: `The run ${outcome.status}: ${outcome.error.message}` }],
        structuredContent: { ...structured, error: outcome.error },
        isError: true,
      };
    case 'input_required': {
      const { question } = outcome;
      const choices = question.details.choices?.length ? `\nChoices: ${question.details.choices.join(', ')}` : '';
      const text =
        `The agent asks: ${question.prompt}${choices}\n\nTo answer, call this tool again with ` +
        `task_id "${outcome.taskId}" and the answer as message (request ${question.requestId}, ${question.inputType}).`;
      return {
        content: [{ type: 'text', text }],
        structuredContent: {
          ...structured,
          input_request: {
            request_id: question.requestId,
            input_type: question.inputType,
            prompt: question.prompt,
            ...question.details,
          },
        },
      };
    }
    case 'detached':
      return errorResult('The call ended before the run did; call again with task_id to follow it');
  }
}
