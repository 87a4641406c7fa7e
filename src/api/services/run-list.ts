import type { Db } from '../../db/client.ts';
import { listVisibleRuns, type RunListFilter } from '../../db/run-list.ts';
import { invalid } from '../../shared/domain-error.ts';
import { decodeKeysetCursor, keysetPage } from '../cursors.ts';
import type { RunListQuery, RunListStatus } from '../schemas/run-list.ts';
import { runSourceKinds } from '../schemas/run-list.ts';
import type { RunStatus } from '../../shared/run-status.ts';
import { isOrgAdmin } from '../../shared/roles.ts';
import type { Caller } from '../../auth/caller.ts';
import { runClients, type RunClient } from '../../shared/run-client.ts';

type Row = Awaited<ReturnType<typeof listVisibleRuns>>[number];
type TaskSource = { flow_id?: unknown; flow_name?: unknown } | null;

const iso = (d: Date) => d.toISOString();

function time(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalid(`\`${name}\` is not a valid time`);
  return date;
}

function sourceFilter(source: string | undefined): RunListFilter['source'] {
  if (source === undefined) return undefined;
  return (runSourceKinds as readonly string[]).includes(source)
    ? { kind: source as (typeof runSourceKinds)[number] }
    : { flowName: source };
}

/** The client stored with the run (src/shared/run-client.ts), or `api`. */
function runClientOrApi(client: string | null): RunClient | 'api' {
  return (runClients as readonly string[]).includes(client ?? '') ? (client as RunClient) : 'api';
}

/** Does the run wait on this caller? The same rule as the `needs_you` filter (db/run-list.ts waitingOn). */
function needsCaller(row: Row, caller: Caller, admin: boolean): boolean {
  return row.inputRequests.some((r) =>
    r.approval
      ? r.approval.status === 'pending' && (admin || (row.task.user.id === caller.userId && !r.approval.sensitive))
      : row.task.user.id === caller.userId,
  );
}

function toItem(row: Row, caller: Caller, admin: boolean) {
  const source = row.task.source as TaskSource;
  const flowName = typeof source?.flow_name === 'string' ? source.flow_name : null;
  return {
    run_id: row.id,
    task_id: row.taskId,
    task_title: row.task.title,
    agent_id: row.task.agentId,
    agent_name: row.task.agent.name,
    status: row.status,
    needs_you: needsCaller(row, caller, admin),
    mode: row.mode,
    source: {
      kind: source ? ('flow' as const) : row.task.user.visitor ? ('widget' as const) : runClientOrApi(row.client),
      flow_id: typeof source?.flow_id === 'string' ? source.flow_id : null,
      flow_name: flowName,
    },
    started_at: iso(row.createdAt),
    finished_at: row.finishedAt ? iso(row.finishedAt) : null,
    usage: { input_tokens: row.inputTokens, output_tokens: row.outputTokens, credits_used: row.creditsUsed },
    user: row.task.user,
  };
}

/**
 * GET /api/runs: the runs the caller may see across agents and tasks, newest first. The cursor's
 * scope is the caller, so one user's cursor cannot be replayed by another (it would show them nothing more anyway).
 */
export async function listRuns(db: Db, caller: Caller, query: RunListQuery) {
  const admin = isOrgAdmin(caller.role);
  const scope = `runs:${caller.userId}`;
  const wanted = new Set([query.status ?? []].flat().flatMap((s) => s.split(',')) as RunListStatus[]);
  const rows = await listVisibleRuns(db, {
    orgId: caller.orgId,
    userId: caller.userId,
    admin,
    statuses: [...wanted].filter((s): s is RunStatus => s !== 'needs_you'),
    needsYou: wanted.has('needs_you'),
    runId: query.run_id,
    agentId: query.agent_id,
    startedBy: query.user_id,
    source: sourceFilter(query.source),
    since: time(query.since, 'since'),
    until: time(query.until, 'until'),
    after: query.cursor === undefined ? undefined : decodeKeysetCursor(scope, query.cursor),
    limit: query.limit + 1,
  });
  const page = keysetPage(scope, rows, query.limit, (r) => r);
  return {
    runs: page.items.map((r) => toItem(r, caller, admin)),
    next_cursor: page.nextCursor,
    count: page.items.length,
  };
}
