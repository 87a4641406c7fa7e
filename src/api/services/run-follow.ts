import type { StoredEvent } from '../../db/event-log.ts';
import { isTerminalEvent } from '../../shared/events.ts';
import type { EventHub } from '../streaming/event-hub.ts';

/** How long a follower waits for a notification before it reads the table anyway. */
const SAFETY_READ_MS = 15_000;

/**
 * A run's stored events after `afterSeq`, in order, up to and including its terminal event: read
 * from the durable log, woken by the event hub's notifications (a lost one delays, never loses,
 * an event). Ends early, without error, when `signal` aborts.
 */
export async function* followRunEvents(
  hub: EventHub,
  runId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<StoredEvent> {
  let last = afterSeq;
  let woken = false;
  let wake: (() => void) | undefined;
  const unsubscribe = hub.subscribe(runId, () => {
    woken = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    while (!signal.aborted) {
      woken = false;
      const page = await hub.read(runId, last);
      for (const event of page.events) {
        if (signal.aborted) return;
        last = event.seq;
        yield event;
        if (isTerminalEvent(event.payload)) return;
      }
      if (page.more || woken || signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SAFETY_READ_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onAbort);
  }
}
