import { condition, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import { bookkeeping } from './activities.ts';
import { slotFreedSignal } from './run-messages.ts';
import type { RunState } from './run-state.ts';

/** How often a waiting run asks again without being told a slot is free (a run that ended without telling, a raised limit). */
const POLL_INTERVAL = '10 seconds';

/**
 * Waits, `pending`, until the org has a slot for the run and no run of it waits longer
 * (src/db/run-slots.ts). Cancellable: a cancel ends the run here. Only runs of a limited org come here.
 */
export async function takeSlot(state: RunState): Promise<void> {
  let freed = false;
  setHandler(slotFreedSignal, () => void (freed = true));
  for (;;) {
    freed = false; // before asking: a signal that arrives while the activity runs makes the wait below end at once
    const admission = await bookkeeping.admitRun({ runId: state.input.runId });
    if (admission.admitted) return;
    await condition(() => freed, POLL_INTERVAL);
  }
}

/** After the run's end is stored: tells the org's oldest waiting runs that a slot is free. */
export async function passSlotOn(state: RunState): Promise<void> {
  const waiting = await bookkeeping.runsToAdmit({ orgId: state.input.orgId });
  // A run that ended meanwhile refuses the signal; its slot was never taken.
  await Promise.all(
    waiting.map((runId) =>
      getExternalWorkflowHandle(runId)
        .signal(slotFreedSignal)
        .catch(() => undefined),
    ),
  );
}
