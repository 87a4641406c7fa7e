import type { Tx } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { newId } from '../shared/ids.ts';
import type { Answer, PendingRequest } from '../shared/input-requests.ts';

export interface OpenRequest {
  request: PendingRequest;
  taskId: string;
  /** Set for approval gates: the approval record to create beside the request. */
  approval?: { id: string; orgId: string; agentId: string; kind: 'action' | 'plan'; toolName?: string };
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

export async function openRequestInTx(tx: Tx, runId: string, open: OpenRequest): Promise<void> {
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

export async function resolveRequestInTx(tx: Tx, resolve: ResolveRequest): Promise<void> {
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
  if (resolve.grant) {
    const g = resolve.grant;
    const existing = await tx.approvalGrant.findFirst({ where: { orgId: g.orgId, agentId: g.agentId, toolName: g.toolName, revokedAt: null } });
    if (!existing) await tx.approvalGrant.create({ data: { id: newId('grt'), ...g } });
  }
}
