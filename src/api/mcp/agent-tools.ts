import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
  type CreateTaskResult,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Caller } from '../../auth/caller.ts';
import { DomainError } from '../../shared/domain-error.ts';
import type { ApiDeps } from '../deps.ts';
import { callAgent, cancelAgentCall, startAgentCall, usableAgentFor } from '../services/agent-calls.ts';
import { usableAgentsOf } from '../services/agent-access.ts';
import { answerOfElicitation, elicitationFor } from './elicitation.ts';
import { progressNotification, ProgressReporter } from './progress.ts';
import { errorResult, resultOf } from './results.ts';
import { recordCall, requestKeyOf } from './resume.ts';
import type { RunTaskStore } from './tasks.ts';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A person may take hours to answer; the run waits, and so does the call. */
const ELICITATION_TIMEOUT_MS = 24 * 3600 * 1000;

const argumentsSchema = z.object({
  message: z.string().min(1).max(100_000),
  task_id: z.string().min(1).max(100).optional(),
  mode: z.enum(['fast', 'deep']).optional(),
});

const inputSchema: Tool['inputSchema'] = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'What to ask the agent, or the answer to its pending question' },
    task_id: {
      type: 'string',
      description: 'Continue this task (a conversation): from an earlier result’s structuredContent.task_id',
    },
    mode: {
      type: 'string',
      enum: ['fast', 'deep'],
      description: 'deep plans before it acts; default: chosen per request',
    },
  },
  required: ['message'],
};

/** The caller of the request being handled, as the /mcp authentication put it. */
export function callerOf(extra: Extra): Caller {
  const caller = extra.authInfo?.extra?.caller as Caller | undefined;
  if (!caller) throw new Error('an /mcp request reached a handler without a caller');
  return caller;
}

/** A tool name from an agent's name: MCP allows [A-Za-z0-9_.-], 1–64 characters. */
export function toolNameOf(agentName: string): string {
  const name = agentName
    .trim()
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return name || 'agent';
}

/** The caller's agents as tools, each with a distinct name (a clash takes a suffix of the agent's id). */
async function agentTools(deps: ApiDeps, caller: Caller) {
  const agents = await usableAgentsOf(deps.db, caller);
  const seen = new Set<string>();
  return agents.map((agent) => {
    let name = toolNameOf(agent.name);
    if (seen.has(name)) name = `${name.slice(0, 50)}_${agent.id.slice(-12)}`;
    seen.add(name);
    return { name, agent };
  });
}

/** What the tools need of their session. */
export interface SessionContext {
  /** The session's id, once initialized. */
  id(): string | undefined;
  /** The session is ending: an aborted call is not a cancel. */
  closing(): boolean;
  /** Calls being followed on this process, by request key: a resumed stream takes a call over. */
  calls: Map<string, AbortController>;
  tasks: RunTaskStore;
}

/**
 * Serves the caller's agents as tools on `server`: read on every request, since grants change at
 * any time.
 */
export function serveAgentTools(server: McpServer, deps: ApiDeps, session: SessionContext): void {
  server.server.registerCapabilities({ tools: { listChanged: false } });
  server.server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: (await agentTools(deps, callerOf(extra))).map(({ name, agent }): Tool => ({
      name,
      title: agent.name,
      description: agent.description,
      inputSchema,
      execution: { taskSupport: 'optional' },
    })),
  }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const caller = callerOf(extra);
    const tool = (await agentTools(deps, caller)).find((t) => t.name === request.params.name);
    // A protocol error, as the 2025-11-25 spec lists unknown tools (an isError result is the tool's own failure).
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = argumentsSchema.safeParse(request.params.arguments ?? {});
    if (!args.success) return errorResult(`Invalid arguments: ${z.prettifyError(args.error)}`);
    if (request.params.task) return createTask(deps, session, caller, tool.agent.id, args.data, extra);
    const key = requestKeyOf(extra.requestId);
    // Aborted when a resumed stream (Last-Event-ID) takes the call over: the run goes on.
    const takenOver = new AbortController();
    session.calls.set(key, takenOver);
    const signal = AbortSignal.any([extra.signal, takenOver.signal]);
    try {
      const agent = await usableAgentFor(deps, caller, tool.agent.id);
      const token = extra._meta?.progressToken;
      const progress = new ProgressReporter(token, (seq, message) =>
        token === undefined ? undefined : extra.sendNotification(progressNotification(token, seq, message)),
      );
      let taskId: string | undefined;
      const onAbort = () => {
        if (session.closing() || !taskId) return;
        cancelAgentCall(deps, caller, agent, taskId).catch((err: unknown) =>
          deps.logger.warn({ err, taskId }, 'cancelling the run of a cancelled MCP call failed'),
        );
      };
      extra.signal.addEventListener('abort', onAbort, { once: true });
      const canElicit = server.server.getClientCapabilities()?.elicitation !== undefined;
      const sessionId = session.id();
      const outcome = await callAgent(deps, caller, agent, args.data, {
        signal,
        onRun: async (run) => {
          taskId = run.taskId;
          if (sessionId) {
            await recordCall(
              deps,
              { sessionId, requestId: extra.requestId, progressToken: token, agentId: agent.id },
              run,
            );
          }
        },
        onEvent: (event, seq) => progress.event(event, seq),
        ...(canElicit
          ? {
              ask: async (question) => {
                await progress.flush();
                const result = await extra.sendRequest(
                  { method: 'elicitation/create', params: elicitationFor(question) },
                  ElicitResultSchema,
                  { timeout: ELICITATION_TIMEOUT_MS, signal },
                );
                return answerOfElicitation(question, result);
              },
            }
          : {}),
      });
      await progress.flush();
      return resultOf(outcome);
    } catch (err) {
      if (err instanceof DomainError) return errorResult(err.message);
      throw err;
    } finally {
      if (session.calls.get(key) === takenOver) session.calls.delete(key);
    }
  });
}

/**
 * A task-augmented call (protocol 2025-11-25): starts the run (or answers the task's question) and
 * returns its MCP task at once; the client follows it with tasks/get and tasks/result (tasks.ts).
 */
async function createTask(
  deps: ApiDeps,
  session: SessionContext,
  caller: Caller,
  agentId: string,
  input: z.infer<typeof argumentsSchema>,
  extra: Extra,
): Promise<CreateTaskResult | CallToolResult> {
  const sessionId = session.id();
  if (!sessionId) return errorResult('Tasks need a session');
  try {
    const agent = await usableAgentFor(deps, caller, agentId);
    const run = await startAgentCall(deps, caller, agent, input);
    await recordCall(deps, { sessionId, requestId: extra.requestId, agentId: agent.id }, run);
    const task = await session.tasks.taskOf({ ...run, agentId: agent.id });
    if (!task) throw new Error(`run ${run.runId} is gone`);
    return { task };
  } catch (err) {
    if (err instanceof DomainError) return errorResult(err.message);
    throw err;
  }
}
