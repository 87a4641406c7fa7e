import type { ApprovalGrant } from '../generated/prisma/client.ts';
import { inAdminTransaction } from './admin-lock.ts';
import type { Db, DbOrTx } from './client.ts';

export type { ApprovalGrant };

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

/**
 * Grants the agent's tool unless an active grant of it exists, which is returned instead
 * (`created` false). The admin lock keeps two concurrent calls from both inserting.
 */
export async function insertGrantOnce(
  db: Db,
  grant: { id: string; orgId: string; agentId: string; toolName: string; grantedBy: string },
): Promise<{ grant: ApprovalGrant; created: boolean }> {
  return inAdminTransaction(db, async (tx) => {
    const existing = await tx.approvalGrant.findFirst({
      where: { orgId: grant.orgId, agentId: grant.agentId, toolName: grant.toolName, revokedAt: null },
      orderBy: { createdAt: 'asc' },
    });
    if (existing) return { grant: existing, created: false };
    return { grant: await tx.approvalGrant.create({ data: grant }), created: true };
  });
}

export async function findGrant(db: DbOrTx, grantId: string): Promise<ApprovalGrant | null> {
  return db.approvalGrant.findUnique({ where: { id: grantId } });
}

/** Revokes the grant unless it already is (a concurrent revoke cannot move the revocation time); returns it after. */
export async function revokeGrantOnce(db: DbOrTx, grantId: string): Promise<ApprovalGrant> {
  await db.approvalGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.approvalGrant.findUniqueOrThrow({ where: { id: grantId } });
}
