import type { ApprovalGrant, Prisma } from '../generated/prisma/client.ts';
import { newId } from '../shared/ids.ts';
import type { Answer, PendingRequest } from '../shared/input-requests.ts';
import { inAdminTransaction } from './admin-lock.ts';
import type { Db, DbOrTx, Tx } from './client.ts';

export type { ApprovalGrant };

export interface OpenRequest {
  request: PendingRequest;
  taskId: string;
  /** Set for approval gates: the approval record to create beside the request. */
  approval?: { id: string; orgId: string; agentId: string; kind: 'action' | 'plan'; toolName?: string };
}

/** Stores a run's input request and, for an approval gate, its approval; inside the caller's transaction. */
export async function insertInputRequest(tx: Tx, runId: string, open: OpenRequest): Promise<void> {
  const { request } = open;
  await tx.inputRequest.create({
    data: {
      id: request.requestId,
      runId,
      taskId: open.taskId,
      toolCallId: request.toolCallId ?? null,
      inputType: request.inputType,
      prompt: request.prompt,
      details: request.details as Prisma.InputJsonValue,
    },
  });
  if (open.approval) {
    await tx.approval.create({
      data: {
        id: open.approval.id,
        orgId: open.approval.orgId,
        agentId: open.approval.agentId,
        taskId: open.taskId,
        runId,
        requestId: request.requestId,
        kind: open.approval.kind,
        toolName: open.approval.toolName ?? null,
        sensitive: request.sensitive,
        details: request.details as Prisma.InputJsonValue,
      },
    });
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
export async function resolveInputRequest(tx: Tx, resolve: ResolveRequest): Promise<void> {
  const now = new Date();
  await tx.inputRequest.updateMany({
    where: { id: resolve.requestId, status: 'pending' },
    data: {
      status: resolve.status,
      answer: (resolve.answer ?? undefined) as Prisma.InputJsonValue | undefined,
      answeredBy: resolve.answeredBy ?? null,
      answeredAt: now,
    },
  });
  if (resolve.approval) {
    await tx.approval.updateMany({
      where: { requestId: resolve.requestId, status: 'pending' },
      data: { status: resolve.approval.status, feedback: resolve.approval.feedback ?? null, decidedBy: resolve.answeredBy ?? null, decidedAt: now },
    });
  }
  if (resolve.grant) await insertGrantOnceInTx(tx, { id: newId('grt'), ...resolve.grant });
}

export interface ApprovalFilter {
  orgId: string;
  /** Undefined for every status. */
  status?: string;
  /** Only approvals of these agents; undefined for every agent of the org. */
  agentIds?: string[];
  limit: number;
}

/** The org's approvals, newest first, each with its request's prompt. */
export async function listApprovals(db: Db, filter: ApprovalFilter) {
  return db.approval.findMany({
    where: {
      orgId: filter.orgId,
      ...(filter.status === undefined ? {} : { status: filter.status }),
      ...(filter.agentIds === undefined ? {} : { agentId: { in: filter.agentIds } }),
    },
    include: { request: { select: { prompt: true } } },
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
    where: { taskId, status: 'pending', run: { status: { notIn: ['completed', 'failed', 'cancelled'] } } },
    orderBy: { createdAt: 'asc' },
  });
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
  return inAdminTransaction(db, (tx) => insertGrantOnceInTx(tx, grant));
}

/** In the caller's transaction: only under the admin lock (insertGrantOnce) can two concurrent calls not both insert. */
async function insertGrantOnceInTx(tx: Tx, grant: NewGrant): Promise<{ grant: ApprovalGrant; created: boolean }> {
  const existing = await tx.approvalGrant.findFirst({
    where: { orgId: grant.orgId, agentId: grant.agentId, toolName: grant.toolName, revokedAt: null },
    orderBy: { createdAt: 'asc' },
  });
  if (existing) return { grant: existing, created: false };
  return { grant: await tx.approvalGrant.create({ data: grant }), created: true };
}

/** Whether an owner or admin chose "approve always" for this agent's tool in the org (an active grant). */
export async function hasActiveGrant(db: DbOrTx, grant: { orgId: string; agentId: string; toolName: string }): Promise<boolean> {
  return (await db.approvalGrant.count({ where: { orgId: grant.orgId, agentId: grant.agentId, toolName: grant.toolName, revokedAt: null } })) > 0;
}

export async function findGrant(db: DbOrTx, grantId: string): Promise<ApprovalGrant | null> {
  return db.approvalGrant.findUnique({ where: { id: grantId } });
}

/** Revokes the grant unless it already is (a concurrent revoke cannot move the revocation time); returns it after. */
export async function revokeGrantOnce(db: DbOrTx, grantId: string): Promise<ApprovalGrant> {
  await db.approvalGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.approvalGrant.findUniqueOrThrow({ where: { id: grantId } });
}
