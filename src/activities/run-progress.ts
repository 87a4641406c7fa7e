import { storeRunStep, type RunStep, type StepStored } from '../db/run-steps.ts';
import { addUsage, creditsFor, usageEventData, type StepUsage } from '../shared/credits.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';
import type { ActivityDeps } from './deps.ts';
import { countRunEnded } from './metrics.ts';
import { nonRetryableIfRunGone } from './run-gone.ts';

export interface RecordProgressInput extends RunStep {
  /**
   * Set on the terminal step: the run's total usage is priced, a USAGE event is
   * written before `events`, and the org is debited, once per run.
   */
  bill?: { usage: TokenUsage; model?: string; steps?: StepUsage[] };
}

/**
 * One atomic step of a run: its status, its events and what it produced, in one
 * transaction, so a client never sees an event whose state is not stored. Billed: the
 * steps' tokens plus those of attempts a retry discarded (model-attempts.ts).
 */
export async function recordRunProgress(
  { db, config }: Pick<ActivityDeps, 'db' | 'config'>,
  { bill, ...step }: RecordProgressInput,
): Promise<ProgressStored> {
  const price = bill
    ? (discarded: TokenUsage) => {
        const usage = addUsage(bill.usage, discarded);
        const credits = creditsFor(usage, config.creditsPer1kTokens);
        return {
          usage,
          credits,
          event: {
            type: 'CUSTOM',
            name: 'USAGE',
            data: usageEventData(usage, credits, bill.model, bill.steps, discarded),
          } as const,
        };
      }
    : undefined;
  const { endedMode, refused } = await nonRetryableIfRunGone(() => storeRunStep(db, step, price));
  // After the commit, and only by the step that stored the end (a retry finds it a duplicate).
  if (endedMode) countRunEnded(step.status!, endedMode);
  return refused ? { refused } : {};
}

/** What the workflow learns from a write: why nothing was stored, when it refused (StepStored). Histories from before it recorded nothing. */
export type ProgressStored = Pick<StepStored, 'refused'>;

export function createRunProgressActivities(deps: ActivityDeps) {
  return {
    recordProgress: (input: RecordProgressInput): Promise<ProgressStored> => recordRunProgress(deps, input),
  };
}
