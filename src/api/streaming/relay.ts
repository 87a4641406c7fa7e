import type { Request, Response } from 'express';
import type { Db } from '../../db/client.ts';
import { runExists } from '../../db/runs.ts';
import { isInfrastructureError } from '../../connections/transient-errors.ts';
import { endStartedResponse } from '../errors.ts';
import { isTerminalEvent, type RunEvent } from '../../shared/events.ts';
import type { StoredEvent } from '../../db/event-log.ts';
import { READ_PAGE, type EventHub } from './event-hub.ts';
import { relayLag } from '../metrics.ts';
import { eventId } from './event-ids.ts';
import { writeFrame } from './sse.ts';

export interface RelayOptions {
  db: Db;
  hub: EventHub;
  res: Response;
  runId: string;
  /** Send events with seq greater than this (0 = from the start). */
  afterSeq: number;
  heartbeatMs: number;
  /** Aborted when this api process drains: the stream then tells its client to reconnect (elsewhere) and ends. */
  stop?: AbortSignal;
  /** How events are written: as stored (our snake_case AG-UI events) unless a route speaks another dialect. */
  format?: StreamFormat;
}

/** Turns our events into another dialect's frames (POST /api/ag-ui/run: AG-UI's camelCase events). */
export interface StreamFormat {
  /** The frames one of our events becomes (none: nothing is sent for it). */
  frames(event: RunEvent): unknown[];
  /** A keepalive frame, or undefined to send an SSE comment line instead. */
  heartbeat(): unknown;
}

const asStored: StreamFormat = {
  frames: (event) => [event],
  heartbeat: () => ({ type: 'HEARTBEAT', timestamp: Date.now() }),
};

/**
 * Events a stream holds while its client is slow to read: as many as one page of the table,
 * which it reads instead once more arrive.
 */
const MAX_ARRIVED = READ_PAGE;

/**
 * Relays a run's stored events to an open SSE response: everything after
 * `afterSeq` from the table, then each new event as the hub delivers it: sent
 * as it is when it is the next seq, otherwise (a gap: a notification lost or
 * too large to carry the event) the table is read from the last seq sent.
 * HEARTBEAT frames (not stored, no id) fill silences; each silence also
 * re-reads the table as a safety net. When the api drains (`stop`), the
 * stream ends with a reconnect notice instead.
 */
async function relayRun({
  db,
  hub,
  res,
  runId,
  afterSeq,
  heartbeatMs,
  stop,
  format = asStored,
}: RelayOptions): Promise<void> {
  if (res.destroyed) return; // the client left before we subscribed: 'close' will not fire again
  let last = afterSeq;
  let closed = false;
  const stopping = () => stop?.aborted === true;
  // Lag is measured for events stored while this stream was open; a replayed backlog is not lag.
  const openedAt = Date.now();
  let signal: (() => void) | undefined;
  /** Read the table after `last`: at the start, on a gap, after a heartbeat, when told to. */
  let mustRead = true;
  const arrived: StoredEvent[] = [];
  const deliver = (event?: StoredEvent) => {
    if (event && arrived.length < MAX_ARRIVED) arrived.push(event);
    else mustRead = true;
    signal?.();
  };
  const unsubscribe = hub.subscribe(runId, deliver);
  res.on('close', () => {
    closed = true;
    signal?.();
  });
  const onStop = () => signal?.();
  stop?.addEventListener('abort', onStop, { once: true });
  /** Writes one event's frame; true when it was the run's last. */
  const send = async (event: StoredEvent): Promise<boolean> => {
    for (const frame of format.frames(event.payload)) await writeFrame(res, frame, eventId(runId, event.seq));
    const storedAt = event.createdAt.getTime();
    if (storedAt >= openedAt) relayLag.observe((Date.now() - storedAt) / 1000);
    last = event.seq;
    return isTerminalEvent(event.payload);
  };
  try {
    while (!closed) {
      if (stopping()) return await writeReconnect(res, runId, last, format);
      if (mustRead) {
        mustRead = false;
        const page = await readThroughOutages(
          () => hub.read(runId, last),
          () => closed || stopping(),
        );
        if (!page) return closed ? undefined : await writeReconnect(res, runId, last, format);
        for (const event of page.events) {
          if (closed) return;
          if (stopping()) return await writeReconnect(res, runId, last, format);
          if (await send(event)) return;
        }
        if (page.more) mustRead = true;
        continue;
      }
      const next = arrived.shift();
      if (next) {
        if (next.seq <= last) continue; // already sent from the table
        if (next.seq === last + 1) {
          if (await send(next)) return;
        } else {
          arrived.length = 0; // a gap: the table has them all, in order
          mustRead = true;
        }
        continue;
      }
      const timedOut = await new Promise<boolean>((resolve) => {
        if (mustRead || arrived.length > 0 || closed || stopping()) return resolve(false);
        const timer = setTimeout(() => resolve(true), heartbeatMs);
        signal = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      signal = undefined;
      if (closed) return;
      if (stopping()) continue;
      if (timedOut) {
        if (!(await runStillStored(db, runId))) {
          // The task was deleted with its runs: no terminal event will ever be stored.
          for (const frame of format.frames({
            type: 'RUN_ERROR',
            timestamp: Date.now(),
            run_id: runId,
            code: 'RUN_DELETED',
            message: 'The run was deleted',
            details: {},
          }))
            await writeFrame(res, frame);
          return;
        }
        const beat = format.heartbeat();
        if (beat === undefined) res.write(': keepalive\n\n');
        else await writeFrame(res, beat);
        mustRead = true;
      }
    }
  } finally {
    stop?.removeEventListener('abort', onStop);
    unsubscribe();
    if (!closed) res.end();
  }
}

/**
 * Starts relaying and returns at once. An open stream then lives on its response (the hub's
 * subscription, the response's listeners, a heartbeat timer) and no longer on its request's
 * handler chain, whose frames, closures and promises would otherwise stay in memory for as
 * long as the stream is open. An error once the headers are out ends the response as the
 * error handler would (endStartedResponse).
 */
export function startRelay(options: RelayOptions): void {
  releaseRequest(options.res.req);
  relayRun(options).catch((err: unknown) => endStartedResponse(options.res, err));
}

/**
 * Lets go of what an open stream no longer needs from its request (~2 KB of the ~18 KB of heap a
 * stream holds): the router's continuation, which Express leaves on `req.next` and which keeps
 * both routers' closures alive (a stream's errors end it through endStartedResponse, never
 * through next), and the caller's bearer token, checked when the stream opened.
 */
function releaseRequest(req: Request): void {
  req.next = undefined;
  req.headers.authorization = undefined; // not `delete`: that would turn the headers object into a slower, larger dictionary
  const raw = req.rawHeaders;
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() !== 'authorization') kept.push(raw[i]!, raw[i + 1]!);
  req.rawHeaders = kept;
}

/** The delay a client's EventSource waits before reconnecting after a drain (SSE `retry:` field). */
export const RECONNECT_RETRY_MS = 1000;

/**
 * The last frame of a stream whose api process is draining: an SSE `retry:` hint and a
 * SYSTEM_STATUS `reconnect` event (no `id:`, not stored, like HEARTBEAT) naming the last id
 * sent. The client reconnects, to another replica, with that id as Last-Event-ID.
 */
async function writeReconnect(res: Response, runId: string, lastSeq: number, format: StreamFormat): Promise<void> {
  res.write(`retry: ${RECONNECT_RETRY_MS}\n`);
  const notice: RunEvent = {
    type: 'CUSTOM',
    timestamp: Date.now(),
    name: 'SYSTEM_STATUS',
    data: {
      status: 'reconnect',
      reason: 'server_shutting_down',
      run_id: runId,
      last_event_id: lastSeq > 0 ? eventId(runId, lastSeq) : null,
      retry_ms: RECONNECT_RETRY_MS,
    },
  };
  for (const frame of format.frames(notice)) await writeFrame(res, frame);
}

/**
 * A read that PostgreSQL cannot answer right now (restarting, unreachable) is retried with
 * backoff while the client stays connected, so an open stream outlives a database restart
 * instead of making every client reconnect at once. Undefined when the client left (or the api drains).
 */
async function readThroughOutages<T>(read: () => Promise<T>, closed: () => boolean): Promise<T | undefined> {
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await read();
    } catch (err) {
      if (!isInfrastructureError(err)) throw err;
    }
    if (closed()) return undefined;
    await new Promise((r) => setTimeout(r, delay));
    if (closed()) return undefined;
  }
}

/** Whether the run's rows still exist; while the database cannot say, assume they do. */
async function runStillStored(db: Db, runId: string): Promise<boolean> {
  try {
    return await runExists(db, runId);
  } catch (err) {
    if (isInfrastructureError(err)) return true;
    throw err;
  }
}
