import type { ApprovalGrant } from '../generated/prisma/client.ts';
import { newId } from '../shared/ids.ts';
import { terminalStatuses } from '../shared/run-status.ts';
import type { Answer, PendingRequest } from '../shared/input-requests.ts';
import { inAdminTransaction } from './admin-lock.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool, sqlOfTx, type Sql } from './sql.ts';

export type { ApprovalGrant };

export interface OpenRequest {
  request: PendingRequest;
  taskId: string;
  /** Set for approval gates: the approval record to create beside the request. */
  approval?: { id: string; orgId: string; agentId: string; kind: 'action' | 'plan'; toolName?: string };
}

/** Stores a run's input request and, for an approval gate, its approval; inside the caller's transaction. */
export async function insertInputRequest(sql: Sql, runId: string, open: OpenRequest): Promise<void> {
  const { request } = open;
  const details = JSON.stringify(request.details);
  await sql.query(
    `INSERT INTO input_requests (id, run_id, task_id, tool_call_id, input_type, prompt, details) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
    [request.requestId, runId, open.taskId, request.toolCallId ?? null, request.inputType, request.prompt, details],
  );
  if (open.approval) {
    const a = open.approval;
    await sql.query(
      `INSERT INTO approvals (id, org_id, agent_id, task_id, run_id, request_id, kind, tool_name, sensitive, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::boolean, $10::jsonb)`,
      [
        a.id,
        a.orgId,
        a.agentId,
        open.taskId,
        runId,
        request.requestId,
        a.kind,
        a.toolName ?? null,
        request.sensitive,
        details,
      ],
    );
  }
}

export interface ResolveRequest {
  requestId: string;
  status: 'answered' | 'dismissed' | 'cancelled';
  answer?: Answer;
  answeredBy?: string;
  approval?: { status: 'approved' | 'rejected' | 'cancelled'; feedback?: string };
  /** "Approve always": a standing grant for the agent's tool in the org. */
  grant?: { orgId: string; agentId: string; toolName: string; grantedBy: string };
}

/**
 * Closes a pending input request (and its pending approval) and, for "approve always",
 * grants the tool unless an active grant exists; inside the caller's transaction. A
 * request or approval already closed stays as it is.
 */
export async function resolveInputRequest(sql: Sql, resolve: ResolveRequest): Promise<void> {
  const now = new Date();
  await sql.query(
    `UPDATE input_requests SET status = $2, answer = COALESCE($3::jsonb, answer), answered_by = $4, answered_at = $5::timestamptz WHERE id = $1 AND status = 'pending'`,
    [
      resolve.requestId,
      resolve.status,
      resolve.answer === undefined ? null : JSON.stringify(resolve.answer),
      resolve.answeredBy ?? null,
      now,
    ],
  );
  if (resolve.approval) {
    await sql.query(
      `UPDATE approvals SET status = $2, feedback = $3, decided_by = $4, decided_at = $5::timestamptz WHERE request_id = $1 AND status = 'pending'`,
      [resolve.requestId, resolve.approval.status, resolve.approval.feedback ?? null, resolve.answeredBy ?? null, now],
    );
  }
  if (resolve.grant) await insertGrantOnceWith(sql, { id: newId('grt'), ...resolve.grant });
}

/** Cancels the run's pending questions and approvals (a run that ended without closing them); inside the caller's transaction. */
export async function cancelOpenRequests(sql: Sql, runId: string): Promise<void> {
  const now = new Date();
  await sql.query(
    `UPDATE input_requests SET status = 'cancelled', answered_at = $2::timestamptz WHERE run_id = $1 AND status = 'pending'`,
    [runId, now],
  );
  await sql.query(
    `UPDATE approvals SET status = 'cancelled', decided_at = $2::timestamptz WHERE run_id = $1 AND status = 'pending'`,
    [runId, now],
  );
}

export interface ApprovalFilter {
  orgId: string;
  /** Undefined for every status. */
  status?: string;
  /** Only approvals of these agents; undefined for every agent of the org. */
  agentIds?: string[];
  limit: number;
}

/** The org's approvals, newest first, each with its request's prompt and who and what it is about (agent, task, its user). */
export async function listApprovals(db: Db, filter: ApprovalFilter) {
  return db.approval.findMany({
    where: {
      orgId: filter.orgId,
      ...(filter.status === undefined ? {} : { status: filter.status }),
      ...(filter.agentIds === undefined ? {} : { agentId: { in: filter.agentIds } }),
    },
    include: {
      request: { select: { prompt: true } },
      run: {
        select: {
          status: true,
          task: {
            select: {
              title: true,
              agent: { select: { name: true } },
              user: { select: { id: true, name: true, email: true, visitor: true } },
            },
          },
        },
      },
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: filter.limit,
  });
}

export type ListedApproval = Awaited<ReturnType<typeof listApprovals>>[number];

/** An approval with its run's status, to decide it. */
export async function findApprovalWithRunStatus(db: Db, approvalId: string) {
  return db.approval.findUnique({ where: { id: approvalId }, include: { run: { select: { status: true } } } });
}

/** Whether the approval behind an input request is sensitive (false when the request is no approval). */
export async function isSensitiveRequest(db: Db, requestId: string): Promise<boolean> {
  const approval = await db.approval.findUnique({ where: { requestId }, select: { sensitive: true } });
  return approval?.sensitive ?? false;
}

/** The oldest pending input request of the task whose run has not ended. */
export async function findOpenInputRequest(db: Db, taskId: string) {
  return db.inputRequest.findFirst({
    where: { taskId, status: 'pending', run: { status: { notIn: terminalStatuses } } },
    orderBy: { createdAt: 'asc' },
  });
}

/** Whether the request is still open on a run that has not ended (what a client was shown as pending). */
export async function isInputRequestOpen(db: Db, requestId: string): Promise<boolean> {
  const rows = await sqlOfPool(db).query(
    `SELECT 1 FROM input_requests q JOIN runs r ON r.id = q.run_id
     WHERE q.id = $1 AND q.status = 'pending' AND r.status::text <> ALL($2::text[])`,
    [requestId, terminalStatuses],
  );
  return rows.length > 0;
}

export interface GrantFilter {
  orgId?: string;
  agentId?: string;
  /** Also revoked grants; by default only active ones. */
  includeRevoked?: boolean;
}

/** Standing approval grants, oldest first. */
export async function listGrants(db: DbOrTx, filter: GrantFilter): Promise<ApprovalGrant[]> {
  return db.approvalGrant.findMany({
    where: { orgId: filter.orgId, agentId: filter.agentId, ...(filter.includeRevoked ? {} : { revokedAt: null }) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

interface NewGrant {
  id: string;
  orgId: string;
  agentId: string;
  toolName: string;
  grantedBy: string;
}

/**
 * Grants the agent's tool unless an active grant of it exists, which is returned instead
 * (`created` false). The admin lock keeps two concurrent calls from both inserting.
 */
export async function insertGrantOnce(db: Db, grant: NewGrant): Promise<{ grant: ApprovalGrant; created: boolean }> {
  return inAdminTransaction(db, (tx) => insertGrantOnceWith(sqlOfTx(tx), grant));
}

const grantColumns = `id, org_id AS "orgId", agent_id AS "agentId", tool_name AS "toolName", granted_by AS "grantedBy", created_at AS "createdAt", revoked_at AS "revokedAt"`;

/** In the caller's transaction: only under the admin lock (insertGrantOnce) can two concurrent calls not both insert. */
async function insertGrantOnceWith(sql: Sql, grant: NewGrant): Promise<{ grant: ApprovalGrant; created: boolean }> {
  const [existing] = await sql.query<ApprovalGrant>(
    `SELECT ${grantColumns} FROM approval_grants WHERE org_id = $1 AND agent_id = $2 AND tool_name = $3 AND revoked_at IS NULL ORDER BY created_at LIMIT 1`,
    [grant.orgId, grant.agentId, grant.toolName],
  );
  if (existing) return { grant: existing, created: false };
  const [created] = await sql.query<ApprovalGrant>(
    `INSERT INTO approval_grants (id, org_id, agent_id, tool_name, granted_by) VALUES ($1, $2, $3, $4, $5) RETURNING ${grantColumns}`,
    [grant.id, grant.orgId, grant.agentId, grant.toolName, grant.grantedBy],
  );
  return { grant: created!, created: true };
}

/** Whether an owner or admin chose "approve always" for this agent's tool in the org (an active grant). */
export async function hasActiveGrant(
  db: DbOrTx,
  grant: { orgId: string; agentId: string; toolName: string },
): Promise<boolean> {
  return (
    (await db.approvalGrant.count({
      where: { orgId: grant.orgId, agentId: grant.agentId, toolName: grant.toolName, revokedAt: null },
    })) > 0
  );
}

export async function findGrant(db: DbOrTx, grantId: string): Promise<ApprovalGrant | null> {
  return db.approvalGrant.findUnique({ where: { id: grantId } });
}

/** Revokes the grant unless it already is (a concurrent revoke cannot move the revocation time); returns it after. */
export async function revokeGrantOnce(db: DbOrTx, grantId: string): Promise<ApprovalGrant> {
  await db.approvalGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.approvalGrant.findUniqueOrThrow({ where: { id: grantId } });
}
