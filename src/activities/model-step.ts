import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { appendEvents } from '../db/event-log.ts';
import { newId } from '../shared/ids.ts';
import { failureTypes, type TokenUsage } from '../shared/run-workflow-types.ts';
import type { ActivityDeps } from './deps.ts';
import { DeltaBuffer } from './delta-buffer.ts';
import { ModelConfigError, type ChatMessage } from './models/provider.ts';
import { resolveModel } from './models/resolve-model.ts';

export interface ModelStepInput {
  runId: string;
  taskId: string;
  agentId: string;
}

export interface ModelStepResult {
  messageId: string;
  text: string;
  usage: TokenUsage;
  model: string;
}

export function createModelStepActivities(deps: ActivityDeps) {
  const { db, config, env, logger } = deps;
  return {
    /**
     * One model call. Token deltas go straight to the run's event log in small
     * batches (they never enter workflow history); the workflow gets the final text.
     * A retried attempt streams a new message with a new message_id.
     */
    async modelStep(input: ModelStepInput): Promise<ModelStepResult> {
      const ctx = Context.current();
      const agent = await db.agent.findUniqueOrThrow({ where: { id: input.agentId } });
      let resolved;
      try {
        resolved = resolveModel(config, agent.modelSettings, env, deps.offlineModel);
      } catch (err) {
        if (err instanceof ModelConfigError) throw ApplicationFailure.nonRetryable(err.message, failureTypes.modelConfig);
        throw err;
      }
      const messages = await conversation(deps, input.taskId);
      const messageId = newId('msg');
      const write = (events: Parameters<typeof appendEvents>[2]) => appendEvents(db, input.runId, events);
      await write([{ type: 'TEXT_MESSAGE_START', message_id: messageId, role: 'assistant' }]);

      const buffer = new DeltaBuffer(deps.deltaFlushMs, async (text) => {
        await write([{ type: 'TEXT_MESSAGE_CONTENT', message_id: messageId, delta: text }]);
        ctx.heartbeat();
      });
      let text = '';
      let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
      try {
        for await (const chunk of resolved.provider.stream({ system: resolved.systemPrompt, messages, signal: ctx.cancellationSignal })) {
          if (chunk.type === 'text') {
            text += chunk.text;
            buffer.push(chunk.text);
          } else if (chunk.type === 'finish') {
            usage = chunk.usage;
          }
        }
        await buffer.flush();
      } catch (err) {
        await buffer.flush().catch(() => {});
        // Close the message so the history stays well-formed; a retry starts a fresh one.
        await write([{ type: 'TEXT_MESSAGE_END', message_id: messageId }]).catch(() => {});
        logger.warn({ runId: input.runId, err: String(err) }, 'model step failed');
        throw ApplicationFailure.retryable(`model call failed: ${(err as Error).message}`, failureTypes.model);
      }
      await write([{ type: 'TEXT_MESSAGE_END', message_id: messageId }]);
      return { messageId, text, usage, model: resolved.provider.label };
    },
  };
}

async function conversation({ db }: ActivityDeps, taskId: string): Promise<ChatMessage[]> {
  const rows = await db.message.findMany({ where: { taskId }, orderBy: { position: 'asc' }, select: { role: true, content: true } });
  return rows
    .filter((m): m is { role: 'user' | 'assistant'; content: string } => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role, content: m.content }));
}
