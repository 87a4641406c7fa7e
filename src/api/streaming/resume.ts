import type { Request, Response } from 'express';
import { z } from 'zod';
import { eventTypeAt } from '../../db/event-log.ts';
import type { StreamableRun } from '../../db/runs.ts';
import { isTerminalEvent, type RunEvent } from '../../shared/events.ts';
import type { ApiDeps } from '../deps.ts';
import { HttpError, invalidValue } from '../errors.ts';
import { EVENT_ID_PATTERN, parseEventId } from './event-ids.ts';
import { startRelay } from './relay.ts';
import { openSse } from './sse.ts';

/** The query twin of the `Last-Event-ID` header, for clients that cannot set headers. */
export const resumeQuerySchema = z.object({
  last_event_id: z
    .string()
    .meta({ pattern: EVENT_ID_PATTERN })
    .optional()
    .describe(
      'Resume after this event id (`<run_id>:<seq>`), like the `Last-Event-ID` header; the header wins when both are sent',
    ),
});

/** Where a resume point came from, so a 422 can say which input was wrong. */
type ResumeSource = ['header', 'last-event-id'] | ['query', 'last_event_id'];

export interface ResumePoint {
  runId: string;
  /** The last seq the client received; the stream continues after it. */
  seq: number;
  source: ResumeSource;
}

export function resumeProblem(source: ResumeSource, msg: string): HttpError {
  return invalidValue(source, msg);
}

/**
 * The resume point a reconnecting client sent: the `Last-Event-ID` header, else
 * the `last_event_id` query parameter. An empty value means "no resume", as
 * browsers send no header before the first id. A value that is not an event id → 422.
 */
export function requestedResumePoint(req: Request, queryValue: string | undefined): ResumePoint | undefined {
  const header = req.get('last-event-id')?.trim();
  const [value, source]: [string | undefined, ResumeSource] = header
    ? [header, ['header', 'last-event-id']]
    : [queryValue?.trim(), ['query', 'last_event_id']];
  if (!value) return undefined;
  const parsed = parseEventId(value);
  if (!parsed)
    throw resumeProblem(source, 'Not an event id: expected "<run_id>:<seq>" as sent in the stream\'s `id:` lines');
  return { ...parsed, source };
}

/**
 * Answers with the run's SSE stream from just after `afterSeq`: stored events
 * first, then live ones, ending after the terminal event. A resume point past
 * the run's last stored event cannot have come from this run → 422. A resume
 * point at the terminal event ends the stream at once (there is nothing left),
 * rather than leaving the client on a stream of heartbeats.
 */
export async function streamRunAfter(
  deps: ApiDeps,
  res: Response,
  run: StreamableRun,
  afterSeq: number,
  source?: ResumeSource,
): Promise<void> {
  if (source && afterSeq > run.lastEventSeq) {
    throw resumeProblem(source, `Run ${run.id} has no event ${afterSeq}; its last event so far is ${run.lastEventSeq}`);
  }
  const finished = afterSeq > 0 && (await isTerminalEventAt(deps, run.id, afterSeq));
  if (res.req.caller) deps.streams.hold(res, res.req.caller);
  openSse(res, { 'X-Run-Id': run.id, 'X-Task-Id': run.taskId });
  if (finished) {
    res.end();
    return;
  }
  // A client that dropped while we read the database has already fired 'close',
  // which the relay would wait for in vain; checked in the same tick as it subscribes.
  if (res.destroyed) return;
  startRelay({
    db: deps.db,
    hub: deps.hub,
    res,
    runId: run.id,
    afterSeq,
    heartbeatMs: deps.config.heartbeatIntervalMs,
    stop: deps.drain.stopSignal,
  });
}

async function isTerminalEventAt({ db }: ApiDeps, runId: string, seq: number): Promise<boolean> {
  const type = await eventTypeAt(db, runId, seq);
  return type !== undefined && isTerminalEvent({ type } as Pick<RunEvent, 'type'>);
}
