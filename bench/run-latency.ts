import type { Db } from '../src/db/client.ts';
import { offlineAnswer, OFFLINE_WORD_DELAY_MS } from '../src/activities/models/offline-model.ts';
import { readTimedSse, request, type BenchCaller, type TimedFrame } from './client.ts';
import { inFlight } from './pool.ts';

/** A short message: the offline model's answer (and so its deliberate pacing) is as short as it gets. */
export const RUN_MESSAGE = 'Hi';

export interface RunTiming {
  /** The run (and workflow) id. */
  runId: string;
  /** Epoch ms just before the POST. */
  startedAt: number;
  /** POST → response headers (ms). */
  headers: number;
  runStarted: number;
  runFinished: number;
  /** Epoch ms when the headers arrived: events stored after this reached the client live. */
  subscribedAt: number;
  frames: TimedFrame[];
}

/** One streamed POST /api/run on a new task; every time is from just before the request. */
export async function timedRun(who: BenchCaller, message = RUN_MESSAGE): Promise<RunTiming> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const res = await request(who, 'POST', '/api/run', { messages: [{ role: 'user', content: message }], mode: 'fast' });
  const headers = performance.now() - t0;
  const subscribedAt = Date.now();
  const frames = await readTimedSse(res);
  const at = (type: string) => {
    const frame = frames.find((f) => f.type === type);
    if (!frame) throw new Error(`run stream had no ${type}`);
    return frame.receivedPerf - t0;
  };
  const runId = res.headers.get('x-run-id');
  if (!runId) throw new Error('run response had no X-Run-Id header');
  return {
    runId,
    startedAt,
    headers,
    runStarted: at('RUN_STARTED'),
    runFinished: at('RUN_FINISHED'),
    subscribedAt,
    frames,
  };
}

/** How much of a run the paced offline model spends sleeping on purpose: its words × 15 ms. */
export function offlineModelDelayMs(message = RUN_MESSAGE): number {
  const words = offlineAnswer([{ role: 'user', content: message }]).match(/\S+\s*/g)?.length ?? 0;
  return words * OFFLINE_WORD_DELAY_MS;
}

export interface Throughput {
  /** Wall time of the whole batch (ms). */
  wallMs: number;
  complete: number;
  incomplete: number;
  /** Stored events of the measured runs that their stream did not deliver (gaps in the ids included). */
  lost: number;
  /** Events delivered twice or out of order. */
  misordered: number;
}

/**
 * Streamed runs, `concurrency` in flight, `total` in all. Every stream's ids must count
 * 1, 2, 3… and cover every event the database holds for its run.
 */
export async function runThroughput(who: BenchCaller, db: Db, total: number, concurrency: number): Promise<Throughput> {
  const { results, wallMs } = await inFlight(total, concurrency, () => timedRun(who));
  const received = new Map<string, number[]>();
  for (const r of results) {
    if (r.status !== 'fulfilled') continue;
    for (const f of r.value.frames) {
      if (!f.id) continue;
      const cut = f.id.lastIndexOf(':');
      const runId = f.id.slice(0, cut);
      received.set(runId, [...(received.get(runId) ?? []), Number(f.id.slice(cut + 1))]);
    }
  }
  const stored = await db.runEvent.groupBy({
    by: ['runId'],
    where: { runId: { in: [...received.keys()] } },
    _count: { _all: true },
  });
  let lost = 0;
  let misordered = 0;
  for (const { runId, _count } of stored) {
    const seqs = received.get(runId) ?? [];
    misordered += seqs.filter((seq, i) => seq !== i + 1).length;
    lost += Math.max(0, _count._all - new Set(seqs).size);
  }
  const complete = results.filter((r) => r.status === 'fulfilled').length;
  return { wallMs, complete, incomplete: total - complete, lost, misordered };
}

/**
 * `runs` streamed runs started at once: for every event stored after its client subscribed,
 * its stored timestamp (created_at) → its arrival at the client, in ms.
 */
export async function relayLags(
  who: BenchCaller,
  runs: number,
): Promise<{ lags: number[]; replayed: number; failed: number }> {
  const { results } = await inFlight(runs, runs, () => timedRun(who));
  const lags: number[] = [];
  let replayed = 0;
  for (const r of results) {
    if (r.status !== 'fulfilled') continue;
    for (const f of r.value.frames) {
      if (f.type === 'HEARTBEAT') continue;
      if (f.timestamp < r.value.subscribedAt) replayed++;
      else lags.push(f.receivedAt - f.timestamp);
    }
  }
  return { lags, replayed, failed: results.filter((r) => r.status === 'rejected').length };
}
