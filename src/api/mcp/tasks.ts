import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { McpError, ErrorCode, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../auth/caller.ts';
import { findMcpCallOfRun, listMcpCalls, type McpCallRow } from '../../db/mcp-sessions.ts';
import { findRun } from '../../db/runs.ts';
import type { ApiDeps } from '../deps.ts';
import { cancelAgentCall, followAgentCall, usableAgentFor } from '../services/agent-calls.ts';
import { pendingInputOf } from '../services/task-input.ts';
import { resultOf } from './results.ts';

/** How often a client should poll tasks/get, and how often tasks/result looks again. */
export const TASK_POLL_MS = 1000;
const PAGE = 50;

/**
 * MCP tasks (protocol 2025-11-25) over runs: the SDK's Protocol serves tasks/get, tasks/result,
 * tasks/list and tasks/cancel from this store. An MCP task is a run a call of the session started
 * or continued (task id = run id), its status the run's, its result the call's result built from the
 * run's log; cancelling cancels the run. Nothing is stored here: tools/call creates the task (it
 * starts the run and records it in mcp_calls).
 */
export class RunTaskStore implements TaskStore {
  constructor(
    private readonly deps: ApiDeps,
    /** The caller of the session's latest request: the store's methods get only the session id. */
    private readonly caller: () => Caller,
  ) {}

  async createTask(_options: CreateTaskOptions): Promise<Task> {
    throw new Error('tasks are created by tools/call, from the run it starts');
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const call = sessionId ? await findMcpCallOfRun(this.deps.db, sessionId, taskId) : null;
    return call ? this.taskOf(call) : null;
  }

  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const call = await this.callOf(taskId, sessionId);
    const caller = this.caller();
    const agent = await usableAgentFor(this.deps, caller, call.agentId);
    // tasks/result asks once the run ended: its log is read to the end at once.
    const outcome = await followAgentCall(this.deps, caller, agent, call, Number.MAX_SAFE_INTEGER, {
      signal: AbortSignal.timeout(30_000),
    });
    return resultOf(outcome);
  }

  async storeTaskResult(): Promise<void> {
    // the result is the run's, kept in its log
  }

  async updateTaskStatus(taskId: string, status: Task['status'], _message?: string, sessionId?: string) {
    if (status !== 'cancelled') return;
    const call = await this.callOf(taskId, sessionId);
    const agent = await usableAgentFor(this.deps, this.caller(), call.agentId);
    await cancelAgentCall(this.deps, this.caller(), agent, call.taskId);
  }

  async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    if (!sessionId) return { tasks: [] };
    const skip = cursor && /^\d{1,9}$/.test(cursor) ? Number(cursor) : 0;
    const calls = await listMcpCalls(this.deps.db, sessionId, skip, PAGE + 1);
    const tasks = (await Promise.all(calls.slice(0, PAGE).map((c) => this.taskOf(c)))).filter((t) => t !== null);
    return calls.length > PAGE ? { tasks, nextCursor: String(skip + PAGE) } : { tasks };
  }

  /** The task of a call: its run's status; a question the run waits on is the status message. */
  async taskOf(call: Pick<McpCallRow, 'runId' | 'taskId' | 'agentId'>): Promise<Task | null> {
    const run = await findRun(this.deps.db, call.runId);
    if (!run) return null;
    const task: Task = {
      taskId: run.id,
      status: statusOf(run.status),
      ttl: null,
      createdAt: run.createdAt.toISOString(),
      lastUpdatedAt: run.updatedAt.toISOString(),
      pollInterval: TASK_POLL_MS,
    };
    if (task.status === 'input_required') {
      const caller = this.caller();
      const agent = await usableAgentFor(this.deps, caller, call.agentId);
      const pending = await pendingInputOf(this.deps.db, caller, agent, call.taskId);
      if (pending.request) {
        task.statusMessage =
          `The agent asks: ${pending.request.prompt} — answer by calling the tool with ` +
          `task_id "${call.taskId}" and the answer as message.`;
      }
    }
    return task;
  }

  private async callOf(taskId: string, sessionId?: string): Promise<McpCallRow> {
    const call = sessionId ? await findMcpCallOfRun(this.deps.db, sessionId, taskId) : null;
    if (!call) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return call;
  }
}

function statusOf(status: string): Task['status'] {
  switch (status) {
    case 'completed':
    case 'failed':
    case 'cancelled':
      return status;
    case 'awaiting_approval':
      return 'input_required';
    default:
      return 'working';
  }
}
