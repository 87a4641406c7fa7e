import { isSensitiveRequest } from '../../db/approvals.ts';
import type { Db } from '../../db/client.ts';
import type { Answer } from '../../shared/input-requests.ts';
import { forbidden } from '../../shared/domain-error.ts';
import { isOrgAdmin } from '../../shared/roles.ts';
import type { Caller } from '../../auth/caller.ts';

/**
 * Who may do what with approvals, one place for both ways of answering (POST
 * /api/tasks/{task_id}/input and POST /api/approvals/{approval_id}/respond). The
 * role is the caller's role in the database at the time of the request (see
 * authenticate); the run's workflow repeats the sensitive check as a second line.
 */
export const APPROVAL_ROLES_DOC =
  'What each role may do with approvals: owners and admins decide any approval of their org, sensitive ones included, ' +
  'and may grant `approve_always` (a standing, org-wide grant for the agent and tool). Members decide approvals of ' +
  'agents they were granted, except sensitive ones (403), and may grant `approve_always` on those. Guests may answer ' +
  'only the runs of their own tasks through POST /api/tasks/{task_id}/input, may not decide sensitive approvals and may ' +
  'never grant `approve_always` or any other org-wide grant (403); they cannot list or respond to /api/approvals.';

export async function authorizeAnswer(db: Db, caller: Caller, requestId: string, answer: Answer): Promise<void> {
  const grantsAlways = !answer.cancelled && 'approve_always' in answer && answer.approve_always === true;
  if (grantsAlways && caller.role === 'guest')
    throw forbidden('Guests may not grant approve_always (an org-wide grant)');
  refuseSensitiveUnlessAdmin(caller, await isSensitiveRequest(db, requestId));
}

/** Sensitive approvals are decided by owners and admins only (403 for everyone else). */
export function refuseSensitiveUnlessAdmin(caller: Caller, sensitive: boolean): void {
  if (sensitive && !isOrgAdmin(caller.role))
    throw forbidden('Only an organization owner or admin may decide a sensitive approval');
}
