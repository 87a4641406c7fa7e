import type { Db } from '../src/db/client.ts';
import { request, type BenchCaller } from './client.ts';
import { createRun } from './event-log.ts';
import { residentMemory } from './proc.ts';
import type { Tenant } from './tenant.ts';

const STREAMS_PER_RUN = 10;

export interface StreamMemory {
  streams: number;
  beforeMiB: number;
  afterMiB: number;
  kbPerStream: number;
}

/**
 * Opens `count` task streams on runs that wait forever (made directly in the database, in
 * `executing`, with no workflow), reads the api's resident memory before and with them
 * open, then closes them.
 */
export async function openStreamsMemory(db: Db, tenant: Tenant, who: BenchCaller, apiPid: number, count: number): Promise<StreamMemory> {
  const taskIds: string[] = [];
  for (let i = 0; i < Math.ceil(count / STREAMS_PER_RUN); i++) taskIds.push((await createRun(db, tenant)).taskId);
  await new Promise((r) => setTimeout(r, 1000));
  const before = residentMemory(apiPid).rss;
  const abort = new AbortController();
  const open: Response[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, (_, j) => request(who, 'GET', `/api/tasks/${taskIds[Math.floor((i + j) / STREAMS_PER_RUN)]}/stream`, undefined, abort.signal)),
    );
    for (const res of batch) if (res.status !== 200) throw new Error(`task stream: ${res.status} ${await res.text()}`);
    open.push(...batch);
  }
  await new Promise((r) => setTimeout(r, 2000));
  const after = residentMemory(apiPid).rss;
  abort.abort();
  await Promise.all(open.map((res) => res.body?.cancel().catch(() => {})));
  return { streams: open.length, beforeMiB: before, afterMiB: after, kbPerStream: ((after - before) * 1024) / open.length };
}
