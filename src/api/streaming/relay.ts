import type { Response } from 'express';
import type { Db } from '../../db/client.ts';
import { runExists } from '../../db/runs.ts';
import { isInfrastructureError } from '../../infra/transient-errors.ts';
import { isTerminalEvent } from '../../shared/events.ts';
import type { EventHub } from './event-hub.ts';
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
}

/**
 * Relays a run's stored events to an open SSE response: everything after
 * `afterSeq` from the table, then each new row as the hub signals it, until
 * the terminal event or the client goes away. HEARTBEAT frames (not stored,
 * no id) fill silences; each silence also re-reads the table as a safety net.
 * When the api drains (`stop`), the stream ends with a reconnect notice instead.
 */
export async function relayRun({ db, hub, res, runId, afterSeq, heartbeatMs, stop }: RelayOptions): Promise<void> {
  if (res.destroyed) return; // the client left before we subscribed: 'close' will not fire again
  let last = afterSeq;
  let closed = false;
  const stopping = () => stop?.aborted === true;
  // Lag is measured for events stored while this stream was open; a replayed backlog is not lag.
  const openedAt = Date.now();
  let signal: (() => void) | undefined;
  let pendingWake = true;
  const wake = () => {
    pendingWake = true;
    signal?.();
  };
  const unsubscribe = hub.subscribe(runId, wake);
  res.on('close', () => {
    closed = true;
    signal?.();
  });
  const onStop = () => signal?.();
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    while (!closed) {
      if (stopping()) return await writeReconnect(res, runId, last);
      if (pendingWake) {
        pendingWake = false;
        const page = await readThroughOutages(() => hub.read(runId, last), () => closed || stopping());
        if (!page) return closed ? undefined : await writeReconnect(res, runId, last);
        const { events, more } = page;
        for (const event of events) {
          if (closed) return;
          if (stopping()) return await writeReconnect(res, runId, last);
          await writeFrame(res, event.payload, eventId(runId, event.seq));
          const storedAt = event.createdAt.getTime();
          if (storedAt >= openedAt) relayLag.observe((Date.now() - storedAt) / 1000);
          last = event.seq;
          if (isTerminalEvent(event.payload)) return;
        }
        if (more) pendingWake = true;
        if (pendingWake) continue;
      }
      const timedOut = await new Promise<boolean>((resolve) => {
        if (pendingWake || closed || stopping()) return resolve(false);
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
          await writeFrame(res, { type: 'RUN_ERROR', timestamp: Date.now(), run_id: runId, code: 'RUN_DELETED', message: 'The run was deleted', details: {} });
          return;
        }
        await writeFrame(res, { type: 'HEARTBEAT', timestamp: Date.now() });
        pendingWake = true;
      }
    }
  } finally {
    stop?.removeEventListener('abort', onStop);
    unsubscribe();
    if (!closed) res.end();
  }
}

/** The delay a client's EventSource waits before reconnecting after a drain (SSE `retry:` field). */
export const RECONNECT_RETRY_MS = 1000;

/**
 * The last frame of a stream whose api process is draining: an SSE `retry:` hint and a
 * SYSTEM_STATUS `reconnect` event (no `id:`, not stored, like HEARTBEAT) naming the last id
 * sent. The client reconnects, to another replica, with that id as Last-Event-ID.
 */
async function writeReconnect(res: Response, runId: string, lastSeq: number): Promise<void> {
  res.write(`retry: ${RECONNECT_RETRY_MS}\n`);
  await writeFrame(res, {
    type: 'CUSTOM',
    timestamp: Date.now(),
    name: 'SYSTEM_STATUS',
    data: { status: 'reconnect', reason: 'server_shutting_down', run_id: runId, last_event_id: lastSeq > 0 ? eventId(runId, lastSeq) : null, retry_ms: RECONNECT_RETRY_MS },
  });
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
