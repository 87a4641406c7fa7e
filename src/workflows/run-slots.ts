import { condition, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import { bookkeeping } from './activities.ts';
import { slotFreedSignal } from './run-messages.ts';
import type { RunState } from './run-state.ts';

/**
 * How long a waiting run waits before it asks again untold (a run that ended without telling, a
 * raised limit): 10 s for the next in line, longer further back, whose turn cannot come before the
 * runs ahead are admitted (and each admitted run tells the next while slots are free).
 */
const pollSeconds = (position: number): number => Math.min(10 * position, 300);

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
    if (admission.admitted) return tell(admission.wake ?? []);
    await condition(() => freed, `${pollSeconds(admission.position)} seconds`);
  }
}

/** After the run's end is stored: tells the org's oldest waiting runs that a slot is free. */
export async function passSlotOn(state: RunState): Promise<void> {
  await tell(await bookkeeping.runsToAdmit({ orgId: state.input.orgId }));
}

async function tell(waiting: string[]): Promise<void> {
  // A run that ended meanwhile refuses the signal; it was waiting, so it held no slot.
  await Promise.all(
    waiting.map((runId) =>
      getExternalWorkflowHandle(runId)
        .signal(slotFreedSignal)
        .catch(() => undefined),
    ),
  );
}
