/**
 * What this tab shows of a live run, kept in sessionStorage: a reload then shows it at once and
 * continues the run's stream after its last event (`Last-Event-ID`) instead of replaying the run.
 */
import type { RunView } from './run-view.ts';

const SNAPSHOT_ITEM = 'ars.console.runSnapshot';

export interface RunSnapshot {
  taskId: string;
  runId: string;
  lastEventId: string;
  view: RunView;
}

/**
 * Writes at most every 300 ms (text arrives in many small deltas), the newest snapshot winning; at
 * once when `now` (a question is waiting: the moment a user is most likely to reload).
 */
export function snapshotWriter(): { save(snapshot: RunSnapshot, now?: boolean): void; clear(): void } {
  let latest: RunSnapshot | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    if (latest) sessionStorage.setItem(SNAPSHOT_ITEM, JSON.stringify(latest));
  };
  return {
    save(snapshot, now = false) {
      latest = snapshot;
      if (now) write();
      else timer ??= setTimeout(write, 300);
    },
    clear() {
      clearTimeout(timer);
      timer = undefined;
      latest = undefined;
      sessionStorage.removeItem(SNAPSHOT_ITEM);
    },
  };
}

/** The saved snapshot of this task's run, if it is the one still going. */
export function loadSnapshot(taskId: string, runId: string): RunSnapshot | undefined {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SNAPSHOT_ITEM) ?? 'null') as RunSnapshot | null;
    return saved && saved.taskId === taskId && saved.runId === runId ? saved : undefined;
  } catch {
    return undefined;
  }
}
