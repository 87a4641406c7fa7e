import type { Db } from '../../db/client.ts';
import type { NewMessage } from '../../db/conversation.ts';
import { latestRunOfTask } from '../../db/runs.ts';
import { pendingClientToolCalls, type ClientTool } from '../../shared/client-tools.ts';
import { invalid } from '../../shared/domain-error.ts';
import { newId } from '../../shared/ids.ts';
import type { RunRequest } from '../../shared/run-request.ts';
import type { Routing } from '../../shared/routing.ts';
import { toolCatalog } from '../../shared/tools/index.ts';

/**
 * The request's client tools as the workflow takes them. A set the run could not offer as asked is 400:
 * the body is valid against the schema, and what is wrong is how its parts go together.
 */
export function clientToolsOf(body: RunRequest): ClientTool[] | undefined {
  const tools = body.client_tools;
  if (!tools?.length) return undefined;
  const names = new Set<string>();
  for (const tool of tools) {
    if (toolCatalog.has(tool.name)) throw invalid(`client tool ${tool.name} has the name of a built-in tool`);
    if (names.has(tool.name)) throw invalid(`two client tools are named ${tool.name}`);
    names.add(tool.name);
  }
  if (body.mode === 'deep') throw invalid('client tools are offered in fast runs: use mode fast or auto');
  if (body.multitask_strategy !== 'reject')
    throw invalid('a run with client tools cannot wait in a queue: use multitask_strategy reject');
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
}

/** A run offering client tools runs the fast loop, which is where they are called. */
export function clientToolRouting(requested: Routing, clientTools: ClientTool[] | undefined): Routing {
  if (!clientTools || requested.mode === 'fast') return requested;
  return { mode: 'fast', reason: 'auto: the request offers client tools, which fast runs call' };
}

/**
 * The messages a continued task stores: a result for each client tool call its last run ended with
 * (the caller's `tool` message, or an error when it sent none, so every call has its result), then the
 * request's last message when it is from the user. Tool messages of earlier turns (AG-UI clients send
 * the whole thread) are already stored and are skipped.
 */
export async function continuedTurn(db: Db, taskId: string, body: RunRequest): Promise<NewMessage[]> {
  const { messages } = body;
  const last = messages[messages.length - 1]!;
  // Only a request that speaks of client tools looks at the last run: other continuations read nothing more.
  const pending =
    body.client_tools?.length || messages.some((m) => m.role === 'tool')
      ? pendingClientToolCalls((await latestRunOfTask(db, taskId))?.result)
      : [];
  if (last.role === 'tool' && !pending.some((call) => call.id === last.tool_call_id))
    throw invalid(`tool_call_id ${last.tool_call_id} is not a client tool call the task's last run waits on`);
  const results: NewMessage[] = pending.map((call) => {
    const answer = messages.find((m) => m.role === 'tool' && m.tool_call_id === call.id);
    const content =
      answer?.content ?? JSON.stringify({ error: { code: 'NO_RESULT', message: 'The client sent no result' } });
    return { id: newId('msg'), role: 'tool', content, parts: { tool_call_id: call.id, tool_name: call.name } };
  });
  return last.role === 'user' ? [...results, { id: newId('msg'), role: 'user', content: last.content }] : results;
}
