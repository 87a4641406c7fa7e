import { patched } from '@temporalio/workflow';

/**
 * The run workflow's changed paths: which of them a run takes.
 *
 * `runWorkflow` runs (started before `agentRun` existed) ask a patch at each change, as they
 * always did, so their saved histories replay as they ran. `agentRun` runs take every current
 * path and ask nothing: a patch costs every run a marker event and a TemporalChangeVersion
 * search-attribute upsert on the Temporal server (a history event and a visibility write each),
 * for paths every new run takes anyway. A later change to `agentRun` adds its patch here.
 */
export interface RunPaths {
  /** Bookkeeping in local activities, and a fast run's answer stored with its end (LOCAL_BOOKKEEPING_PATCH). */
  localBookkeeping(): boolean;
  /** A cancel accepted before the terminal write wins over the finish it raced (CANCEL_WINS_PATCH). */
  cancelWins(): boolean;
  /** Sandbox calls go to the host holding the sandbox (SANDBOX_ROUTING_PATCH). */
  sandboxRouting(): boolean;
}

/**
 * Runs from this patch on do their bookkeeping in local activities (see activities.ts) and
 * store a fast run's answer with its terminal write; histories from before it replay with
 * the regular activities they ran.
 */
export const LOCAL_BOOKKEEPING_PATCH = 'local-bookkeeping';

/** Histories from before cancel won over a finish it raced (see finish) replay as they ran. */
export const CANCEL_WINS_PATCH = 'cancel-wins-over-finish';

/**
 * Runs from before this patch called sandbox activities on the shared task queue, so
 * any worker could take them; newer runs send them to the host holding the sandbox.
 */
export const SANDBOX_ROUTING_PATCH = 'sandbox-host-routing';

/** `agentRun`: every current path, no markers. */
export const currentPaths: RunPaths = {
  localBookkeeping: () => true,
  cancelWins: () => true,
  sandboxRouting: () => true,
};

/** `runWorkflow`: each path as its patch says (true for runs started after the patch). */
export const patchedPaths: RunPaths = {
  localBookkeeping: () => patched(LOCAL_BOOKKEEPING_PATCH),
  cancelWins: () => patched(CANCEL_WINS_PATCH),
  sandboxRouting: () => patched(SANDBOX_ROUTING_PATCH),
};
