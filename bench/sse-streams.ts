import type { Db } from '../src/db/client.ts';
import { request, type BenchCaller } from './client.ts';
import { createRun } from './event-log.ts';
import { residentMemory } from './proc.ts';
import type { Tenant } from './tenant.ts';

const STREAMS_PER_RUN = 10;
/** Streams opened and closed first, so the figure is what each open stream holds, not the stream path's first use. */
const WARM_UP_STREAMS = 100;
/** The api's RSS is read 2 s after the last stream opened, and again once V8 has collected what opening them left behind (`settleMs`). */
const FIRST_READING_MS = 2000;

export interface StreamMemory {
  streams: number;
  beforeMiB: number;
  /** RSS with the streams open, 2 s after the last one opened. */
  afterMiB: number;
  kbPerStream: number;
  /** RSS with the streams open, `settleMs` after the last one opened: what they hold once V8 collected the garbage of opening them. */
  settledMiB: number;
  settledKbPerStream: number;
  /** The same reading for the warm-up streams, on the api's first streams (code compiled and loaded on first use included). */
  coldKbPerStream: number;
}

/**
 * Opens task streams on runs that wait forever (made directly in the database, in `executing`,
 * with no workflow): first WARM_UP_STREAMS, closed again, then `count`, reading the api's
 * resident memory before and with them open (2 s and `settleMs` after the last opened); then closes them.
 */
export async function openStreamsMemory(
  db: Db,
  tenant: Tenant,
  who: BenchCaller,
  apiPid: number,
  count: number,
  settleMs: number,
): Promise<StreamMemory> {
  const taskIds: string[] = [];
  for (let i = 0; i < Math.ceil(count / STREAMS_PER_RUN); i++) taskIds.push((await createRun(db, tenant)).taskId);
  const cold = await heldStreams(who, apiPid, taskIds, Math.min(WARM_UP_STREAMS, count), FIRST_READING_MS);
  const warm = await heldStreams(who, apiPid, taskIds, count, settleMs);
  return { ...warm, coldKbPerStream: cold.kbPerStream };
}

async function heldStreams(
  who: BenchCaller,
  apiPid: number,
  taskIds: string[],
  count: number,
  settleMs: number,
): Promise<Omit<StreamMemory, 'coldKbPerStream'>> {
  await new Promise((r) => setTimeout(r, 1000));
  const before = residentMemory(apiPid).rss;
  const abort = new AbortController();
  const open: Response[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, (_, j) =>
        request(
          who,
          'GET',
          `/api/tasks/${taskIds[Math.floor((i + j) / STREAMS_PER_RUN)]}/stream`,
          undefined,
          abort.signal,
        ),
      ),
    );
    for (const res of batch) if (res.status !== 200) throw new Error(`task stream: ${res.status} ${await res.text()}`);
    open.push(...batch);
  }
  await new Promise((r) => setTimeout(r, FIRST_READING_MS));
  const after = residentMemory(apiPid).rss;
  await new Promise((r) => setTimeout(r, settleMs - FIRST_READING_MS));
  const settled = residentMemory(apiPid).rss;
  abort.abort();
  await Promise.all(open.map((res) => res.body?.cancel().catch(() => {})));
  const perStream = (mib: number) => ((mib - before) * 1024) / open.length;
  return {
    streams: open.length,
    beforeMiB: before,
    afterMiB: after,
    kbPerStream: perStream(after),
    settledMiB: settled,
    settledKbPerStream: perStream(settled),
  };
}
