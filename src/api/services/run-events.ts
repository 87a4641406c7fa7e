import type { Db } from '../../db/client.ts';
import { readEvents, type StoredEvent } from '../../db/event-log.ts';
import { isTerminalStatus, type RunStatus } from '../../shared/run-status.ts';
import { encodeCursor } from '../cursors.ts';
import { eventId } from '../streaming/event-ids.ts';

function toRecord(event: StoredEvent) {
  return {
    id: eventId(event.runId, event.seq),
    run_id: event.runId,
    event_type: event.type,
    event_name: event.name,
    payload: event.payload,
    created_at: event.createdAt.toISOString(),
  };
}

/**
 * Up to `limit` stored events of `run` after `after`. `run` must have been read before its events:
 * if it was finished then, every event it will ever have is already stored, so a page that reaches
 * its last event has no next cursor; while it is live every page has one.
 */
export async function runEventPage(
  db: Db,
  run: { id: string; status: RunStatus; lastEventSeq: number },
  after: number,
  limit: number,
) {
  const events = await readEvents(db, run.id, after, limit);
  const lastSeq = events.at(-1)?.seq ?? after;
  const atTail = isTerminalStatus(run.status) && lastSeq >= run.lastEventSeq;
  return {
    run_id: run.id,
    events: events.map(toRecord),
    next_cursor: atTail ? null : encodeCursor({ runId: run.id, seq: lastSeq }),
    count: events.length,
  };
}
