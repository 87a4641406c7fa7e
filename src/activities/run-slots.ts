import { admitRun, runsToAdmit, type Admission } from '../db/run-slots.ts';
import type { ActivityDeps } from './deps.ts';
import { nonRetryableIfRunGone } from './run-gone.ts';

/** The org's concurrent-run limit as the run workflow meets it (src/db/run-slots.ts). Only runs of limited orgs call these. */
export function createRunSlotActivities({ db }: Pick<ActivityDeps, 'db'>) {
  return {
    /** Takes a slot for the run, or marks it waiting and says its place in the org's queue. */
    admitRun: ({ runId }: { runId: string }): Promise<Admission> => nonRetryableIfRunGone(() => admitRun(db, runId)),

    /** The waiting runs of the org to tell that a slot is free (after a run of it ended). */
    runsToAdmit: ({ orgId }: { orgId: string }): Promise<string[]> => runsToAdmit(db, orgId),
  };
}
