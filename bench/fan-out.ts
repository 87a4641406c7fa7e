import { readTimedSse, request, type BenchCaller, type TimedFrame } from './client.ts';
import { distribution, type Row } from './stats.ts';

/**
 * A long user message, so the offline model (which echoes it) streams for a few seconds
 * and most events are stored after every reader has subscribed. `mode: fast` keeps it one
 * model step (600+ characters would route to deep).
 */
const LONG_MESSAGE = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');

interface Reader {
  /** Epoch ms when the stream's headers arrived: events stored after this reach the reader live. */
  subscribedAt: number;
  frames: TimedFrame[];
}

async function openReader(who: BenchCaller, taskId: string): Promise<Reader> {
  const res = await request(who, 'GET', `/api/tasks/${taskId}/stream`);
  const subscribedAt = Date.now();
  return { subscribedAt, frames: await readTimedSse(res) };
}

/**
 * One background run followed by `readers` SSE readers on its task stream. For every event
 * stored after a reader subscribed: receipt time at that reader minus the event's stored
 * timestamp (its created_at, set just before the inserting transaction commits).
 */
async function fanOut(who: BenchCaller, readerCount: number): Promise<Row> {
  const res = await request(who, 'POST', '/api/run', { messages: [{ role: 'user', content: LONG_MESSAGE }], mode: 'fast', stream: false });
  if (res.status !== 202) throw new Error(`background run: ${res.status} ${await res.text()}`);
  const { task_id: taskId } = (await res.json()) as { task_id: string };
  const readers = await Promise.all(Array.from({ length: readerCount }, () => openReader(who, taskId)));

  const lags: number[] = [];
  let replayed = 0;
  for (const reader of readers) {
    for (const frame of reader.frames) {
      if (frame.type === 'HEARTBEAT') continue;
      if (frame.timestamp < reader.subscribedAt) replayed++;
      else lags.push(frame.receivedAt - frame.timestamp);
    }
  }
  const events = readers[0]!.frames.filter((f) => f.type !== 'HEARTBEAT').length;
  const note = `${readerCount} × ${events} events; ${lags.length} live, ${replayed} replayed (not counted)`;
  return distribution('d. fan-out', `event stored → received, ${readerCount} reader${readerCount === 1 ? '' : 's'}`, lags, note);
}

/** d. The same run shape read by one reader (the baseline) and by 50 at once. */
export async function benchFanOut(who: BenchCaller): Promise<Row[]> {
  return [await fanOut(who, 1), await fanOut(who, 50)];
}
