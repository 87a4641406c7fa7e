import type { RunEventInput } from '../../shared/events.ts';
import type { Role } from '../../db/users.ts';
import type { ActivityDeps } from '../deps.ts';
import { ToolError } from '../../shared/tools/tool-error.ts';

/** What a tool implementation gets for one call. */
export interface ToolContext {
  runId: string;
  taskId: string;
  orgId: string;
  agentId: string;
  toolCallId: string;
  /** Aborted when the run is cancelled or the activity times out: stop work and kill child processes. */
  signal: AbortSignal;
  /** Tell Temporal the call is alive (long commands must call this at least every 20 s). */
  heartbeat(details?: unknown): void;
  /**
   * Writes events to the run's stream (SYSTEM_STATUS, ARTIFACT_*). `key` makes the write idempotent
   * across activity retries: give each emit of one call a distinct, deterministic key.
   */
  emit(events: RunEventInput[], key?: string): Promise<void>;
  /** The user whose task this run is, with their role as the database has it now (read once per call). */
  requester(): Promise<{ userId: string; role: Role }>;
  deps: ActivityDeps;
}

/** The code behind an `activity` tool of the catalog (src/shared/tools). Input is already validated. */
export interface ToolImplementation {
  name: string;
  run(input: never, ctx: ToolContext): Promise<unknown>;
}

export function implementTool<I>(
  name: string,
  run: (input: I, ctx: ToolContext) => Promise<unknown>,
): ToolImplementation {
  return { name, run: run as ToolImplementation['run'] };
}

/**
 * Guests get from their agent's tools no more than their own endpoints give them: no
 * agent memory (GET /api/agents/{id}/memories is 403 for them) and no share of the
 * agent's workspace, which holds what other users' runs left there.
 */
export async function refuseGuests(ctx: ToolContext, what: string): Promise<void> {
  const { role } = await ctx.requester();
  if (role === 'guest') throw new ToolError(`${what} is not available in a guest's run`, 'FORBIDDEN_FOR_GUESTS');
}
