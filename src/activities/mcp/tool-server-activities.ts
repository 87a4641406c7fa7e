import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { InfrastructureUnavailable, markInfrastructure } from '../../connections/transient-errors.ts';
import { appendEvents } from '../../db/event-log.ts';
import { guardedFetch } from '../../outbound/guarded-fetch.ts';
import type { RunEventInput } from '../../shared/events.ts';
import { CALL_ATTEMPTS, type ToolCallInput, type ToolOutcome } from '../../shared/run-workflow-types.ts';
import { serverToolName } from '../../shared/tool-server-names.ts';
import type { ServerTool, ToolServerCheck, ToolServerRef, ToolServersListing } from '../../shared/tool-server-types.ts';
import type { ActivityDeps } from '../deps.ts';
import { orgSecretReader } from '../org-secrets.ts';
import { connectToolServer, type ServerSession } from './connect.ts';
import { elicitationHandler } from './elicitation.ts';
import { describeServerFailure, isTransportFailure } from './failures.ts';
import { ClientCredentialsTokens } from './oauth.ts';
import { AuthorizationCodeTokens, ConnectNeeded } from './authorization-code-tokens.ts';
import { createSecretBox } from '../../auth/secret-box.ts';
import { putOrgSecret } from '../../db/org-secrets.ts';
import { parseStoredGrant, StoredGrantUnreadable } from '../../mcp-oauth/stored-grant.ts';
import { storeResultArtifacts } from './result-artifacts.ts';
import { progressRelay } from './progress.ts';
import { SessionPool } from './session-pool.ts';
import { toolOutcome } from './results.ts';

export interface CheckToolServerInput {
  orgId: string;
  server: ToolServerRef;
}

export interface ListToolServersInput {
  runId: string;
  orgId: string;
  servers: ToolServerRef[];
}

/** One call of a server's tool: `name` is the model's (`<server>__<tool>`), `tool` the server's own. */
export interface ServerToolCallInput extends ToolCallInput {
  server: ToolServerRef;
  tool: string;
}

/** Failure type of a call whose server could not be reached: retried by the activity's policy. */
export const TOOL_SERVER_UNAVAILABLE = 'ToolServerUnavailable';

/** Connecting and listing take at most this long per server, whatever a tool call may take. */
const LIST_TIMEOUT_MS = 30_000;
/** An admin waits for a connection test: it gives up sooner than a run's start does. */
const CHECK_TIMEOUT_MS = 15_000;
/** A server that cannot be reached at the run's start gets one more try a second later, then the run goes on without it. */
const LIST_ATTEMPTS = 2;
const LIST_RETRY_DELAY_MS = 1000;
/** An unanswered elicitation is declined this long before the call's timeout, so the server can still answer the call. */
const ELICIT_MARGIN_MS = 2000;

/** Raised for a header's secret that cannot be read: a setting to fix, not a reason to retry. */
class ServerConfigProblem extends Error {}

export function createToolServerActivities(deps: ActivityDeps) {
  const readOrgSecret = orgSecretReader(deps.db, deps.config);
  const fetch = guardedFetch(deps.config.outbound.privateTargets === 'allow');
  const oauthTokens = new ClientCredentialsTokens(fetch);
  const secretBox = createSecretBox(deps.config.secrets.key);
  // A rotated refresh token replaces the old one in the org secret: the old one may already be void.
  const grantTokens = new AuthorizationCodeTokens(fetch, async (orgId, name, grant) => {
    await putOrgSecret(deps.db, orgId, name, secretBox.seal(orgId, name, JSON.stringify(grant))).catch(
      markInfrastructure,
    );
  });
  const sessions = new SessionPool();

  const emit = (runId: string, data: Record<string, unknown>, key: string) =>
    appendEvents(deps.db, runId, [{ type: 'CUSTOM', name: 'SYSTEM_STATUS', data } satisfies RunEventInput], key).catch(
      markInfrastructure,
    );

  /** The server's headers, secrets resolved here, inside the activity: never in the workflow's history. */
  async function headersOf(orgId: string, server: ToolServerRef): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(server.headers ?? {})) {
      if (typeof value === 'string') headers[name] = value;
      else
        headers[name] = await readOrgSecret(orgId, value.secret, `header ${name} of tool server ${server.name}`).catch(
          (err: unknown) => {
            if (err instanceof ApplicationFailure) throw new ServerConfigProblem(err.message);
            throw markInfrastructure(err);
          },
        );
    }
    return headers;
  }

  const readSetting = (orgId: string, name: string, usedFor: string) =>
    readOrgSecret(orgId, name, usedFor).catch((err: unknown) => {
      if (err instanceof ApplicationFailure) throw new ServerConfigProblem(err.message);
      throw markInfrastructure(err);
    });

  /** The server's OAuth client: its secrets opened here, like the headers', and its token kept on this worker only. */
  async function authProviderOf(orgId: string, server: ToolServerRef) {
    const { oauth } = server;
    if (!oauth) return undefined;
    const clientSecret =
      oauth.clientSecret &&
      (await readSetting(orgId, oauth.clientSecret.secret, `client_secret of tool server ${server.name}`));
    if (oauth.grant === 'client_credentials') {
      const credential =
        clientSecret ??
        (await readSetting(orgId, oauth.privateKey!.secret, `private_key of tool server ${server.name}`));
      return oauthTokens.provider(orgId, server.url, oauth, credential);
    }
    const grant = await readOrgSecret(orgId, oauth.refreshToken.secret, `tool server ${server.name}`).catch(
      (err: unknown) => {
        if (err instanceof ApplicationFailure && err.type === 'SecretMissing')
          throw new ServerConfigProblem(
            `tool server ${server.name} is not connected: an admin connects it (Admin → Agents, Connect), which sets the org secret ${oauth.refreshToken.secret}`,
          );
        if (err instanceof ApplicationFailure) throw new ServerConfigProblem(err.message);
        throw markInfrastructure(err);
      },
    );
    try {
      return grantTokens.provider(orgId, server.url, oauth, parseStoredGrant(grant), clientSecret);
    } catch (err) {
      if (err instanceof StoredGrantUnreadable || err instanceof ConnectNeeded)
        throw new ServerConfigProblem(
          `org secret ${oauth.refreshToken.secret} of tool server ${server.name} ${err.message}`,
        );
      throw err;
    }
  }

  /**
   * Runs `work` on a session with the server; heartbeats meanwhile, so cancellation reaches the call.
   * With a run's id, the session is the run's: kept on this worker for its next call (sessions.use);
   * without, a new one, always ended.
   */
  async function withSession<T>(
    orgId: string,
    server: ToolServerRef,
    timeoutMs: number,
    runId: string | undefined,
    work: (session: ServerSession, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const activity = Context.current();
    const headers = await headersOf(orgId, server);
    const authProvider = await authProviderOf(orgId, server);
    const beat = setInterval(() => activity.heartbeat(), 1000);
    const signal = activity.cancellationSignal;
    const connect = () => connectToolServer(server.url, { headers, fetch, signal, timeoutMs, authProvider });
    try {
      if (runId)
        return await sessions.use(SessionPool.key(runId, server.url, headers), connect, (s) => work(s, signal));
      const session = await connect();
      try {
        return await work(session, signal);
      } finally {
        await session.close();
      }
    } finally {
      clearInterval(beat);
    }
  }

  async function listOne(input: ListToolServersInput, server: ToolServerRef): Promise<ServerTool[] | string> {
    const key = (status: string) => `tool_server:${server.name}:${status}`;
    await emit(input.runId, { status: 'tool_server_connecting', server: server.name }, key('connecting'));
    let reason = '';
    for (let attempt = 1; attempt <= LIST_ATTEMPTS; attempt++) {
      if (attempt > 1) {
        await emit(
          input.runId,
          { status: 'tool_server_retrying', server: server.name, attempt, reason },
          key('retrying'),
        );
        await sleep(LIST_RETRY_DELAY_MS, Context.current().cancellationSignal);
      }
      try {
        const tools = await withSession(input.orgId, server, LIST_TIMEOUT_MS, input.runId, (session, signal) =>
          listTools(session, server, signal),
        );
        const ready = { server: server.name, tool_count: tools.length, tools: tools.map((t) => t.name) };
        await emit(input.runId, { status: 'tool_server_ready', ...ready }, key('ready'));
        return tools;
      } catch (err) {
        if (Context.current().cancellationSignal.aborted || err instanceof InfrastructureUnavailable) throw err;
        reason = describeServerFailure(err);
        if (!isTransportFailure(err)) break; // a refusal or a bad secret: trying again changes nothing
      }
    }
    await emit(input.runId, { status: 'tool_server_failed', server: server.name, reason }, key('failed'));
    return reason;
  }

  return {
    /**
     * Tests a server as an admin defines it (Admin → Agents, "Test connection"): connects and lists
     * once, from the worker, with the run's outbound guard and secrets, and says what a run would
     * offer or why it could not. Emits no run event; any failure of the server is the answer.
     */
    async checkToolServer({ orgId, server }: CheckToolServerInput): Promise<ToolServerCheck> {
      const { allowedTools, ...everyTool } = server;
      try {
        const { transport, tools } = await withSession(
          orgId,
          everyTool,
          CHECK_TIMEOUT_MS,
          undefined,
          async (session, signal) => ({
            transport: session.transport,
            tools: await listTools(session, everyTool, signal, CHECK_TIMEOUT_MS),
          }),
        );
        const offered = tools.filter((t) => !allowedTools || allowedTools.includes(t.tool));
        return {
          ok: true,
          transport,
          tools: offered.map(({ name, tool, description }) => ({ name, tool, description })),
          unknownAllowedTools: (allowedTools ?? []).filter((name) => !tools.some((t) => t.tool === name)),
        };
      } catch (err) {
        if (err instanceof InfrastructureUnavailable) throw err;
        const reason = err instanceof ServerConfigProblem ? err.message : describeServerFailure(err);
        return { ok: false, tools: [], unknownAllowedTools: [], reason };
      }
    },

    /**
     * Lists the tools of the run's servers, once, at its start (the result is in the workflow's
     * history). A server that cannot be reached or listed is reported (`tool_server_failed`) and
     * left out: the run goes on without it.
     */
    async listToolServerTools(input: ListToolServersInput): Promise<ToolServersListing> {
      const listed = await Promise.all(input.servers.map((server) => listOne(input, server)));
      const listing: ToolServersListing = { tools: [], unavailable: [] };
      listed.forEach((result, i) => {
        if (typeof result === 'string') listing.unavailable.push({ server: input.servers[i]!.name, reason: result });
        else listing.tools.push(...result);
      });
      return listing;
    },

    /**
     * One call of a server's tool, at least once: a transport failure (refused or reset connection,
     * 5xx, timeout) is retried, up to CALL_ATTEMPTS attempts, then told to the model; a tool's own
     * error (`isError`) or the server's refusal is told to the model at once.
     */
    async callServerTool(call: ServerToolCallInput): Promise<ToolOutcome> {
      const activity = Context.current();
      const { attempt } = activity.info;
      if (attempt > 1)
        await emit(
          call.runId,
          { status: 'retrying', operation: 'tool_call', tool_call_id: call.toolCallId, tool: call.name, attempt },
          `tool:${call.toolCallId}:retry:${attempt}`,
        );
      const timeoutMs = call.server.timeoutSeconds * 1000;
      try {
        return await withSession(call.orgId, call.server, timeoutMs, call.runId, async (session, signal) => {
          const progress = progressRelay(call, attempt, (events) => appendEvents(deps.db, call.runId, events));
          // The server may ask the run's user during the call, until shortly before the call's own timeout.
          const window = Date.now() + timeoutMs - Math.min(ELICIT_MARGIN_MS, timeoutMs / 4);
          session.elicit = elicitationHandler(deps, call, window, signal);
          const result = await session.client
            .callTool({ name: call.tool, arguments: argumentsOf(call.args) }, undefined, {
              signal,
              timeout: timeoutMs,
              onprogress: progress.onprogress,
            })
            .finally(() => (session.elicit = undefined));
          await progress.settled();
          const toolResult = result as CallToolResult;
          const artifacts = toolResult.isError
            ? undefined
            : await storeResultArtifacts(deps.db, call, toolResult, (events, key) =>
                appendEvents(deps.db, call.runId, events, key),
              ).catch(markInfrastructure);
          return toolOutcome(toolResult, artifacts);
        });
      } catch (err) {
        // Cancellation, and our own store failing around the call: retried without limit by the activity's policy.
        if (activity.cancellationSignal.aborted || err instanceof InfrastructureUnavailable) throw err;
        if (err instanceof ServerConfigProblem) return failed('TOOL_SERVER_CONFIG', err.message);
        const reason = describeServerFailure(err);
        if (!isTransportFailure(err)) return failed('TOOL_SERVER_ERROR', `${call.server.name}: ${reason}`);
        deps.logger.warn({ runId: call.runId, tool: call.name, attempt, reason }, 'tool server call failed');
        if (attempt < CALL_ATTEMPTS)
          throw ApplicationFailure.retryable(`${call.server.name} unreachable: ${reason}`, TOOL_SERVER_UNAVAILABLE);
        return failed(
          'TOOL_SERVER_UNAVAILABLE',
          `tool server ${call.server.name} could not be reached (attempt ${attempt} of ${CALL_ATTEMPTS}): ${reason}`,
        );
      }
    },
  };
}

export async function listTools(
  session: ServerSession,
  server: ToolServerRef,
  signal: AbortSignal,
  timeoutMs = LIST_TIMEOUT_MS,
): Promise<ServerTool[]> {
  const tools: ServerTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await session.client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs });
    for (const t of page.tools) {
      if (server.allowedTools && !server.allowedTools.includes(t.name)) continue;
      const name = serverToolName(server.name, t.name);
      if (!name) continue; // a name no model provider accepts
      tools.push({
        name,
        server: server.name,
        tool: t.name,
        description: t.description ?? t.title ?? t.name,
        parameters: t.inputSchema as Record<string, unknown>,
      });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function failed(code: string, message: string): ToolOutcome {
  return { ok: false, error: { code, message } };
}

/** MCP takes an object of arguments; a model that sent something else gets the server's answer to an empty one. */
function argumentsOf(args: unknown): Record<string, unknown> {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}
