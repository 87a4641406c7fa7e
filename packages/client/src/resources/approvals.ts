/** `client.approvals`: the org's approval gates, and decisions on them. */
import type { Transport } from '../transport.ts';
import type { ApprovalDecision, ApprovalDecisionResult, ApprovalList, ApprovalStatus, CallOptions } from '../types.ts';

export class Approvals {
  constructor(private readonly transport: Transport) {}

  /** Approvals visible to the caller (GET /api/approvals; `status` defaults to `pending`). */
  list(opts: Omit<CallOptions, 'agentId'> & { status?: ApprovalStatus; limit?: number } = {}): Promise<ApprovalList> {
    const { status, limit, signal } = opts;
    return this.transport.json({
      method: 'GET',
      path: '/api/approvals',
      query: { status, limit },
      signal,
      idempotent: true,
    });
  }

  /** Approves or rejects (POST /api/approvals/{approval_id}/respond), exactly as answering the run's input would. */
  respond(
    approvalId: string,
    decision: ApprovalDecision,
    opts: Omit<CallOptions, 'agentId'> = {},
  ): Promise<ApprovalDecisionResult> {
    return this.transport.json({
      method: 'POST',
      path: `/api/approvals/${encodeURIComponent(approvalId)}/respond`,
      body: decision,
      signal: opts.signal,
      idempotent: false,
    });
  }
}
