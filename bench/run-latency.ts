import { offlineAnswer } from '../src/activities/models/offline-model.ts';
import { readTimedSse, request, type BenchCaller } from './client.ts';
import { cpuMeter, type Watched } from './proc.ts';
import { distribution, perSecond, type Row } from './stats.ts';

export const RUN_MESSAGE = 'Hello! How are you today?';
const RUNS = 20;
const WARM_UP_RUNS = 2;
/** The offline model sleeps this long before each word (src/activities/models/offline-model.ts). */
const OFFLINE_WORD_DELAY_MS = 15;

interface RunTiming {
  headers: number;
  runStarted: number;
  firstContent: number;
  runFinished: number;
}

/** One streamed POST /api/run on a new task; every time is from just before the request. */
async function timedRun(who: BenchCaller): Promise<RunTiming> {
  const t0 = performance.now();
  const res = await request(who, 'POST', '/api/run', { messages: [{ role: 'user', content: RUN_MESSAGE }] });
  const headers = performance.now() - t0;
  const frames = await readTimedSse(res);
  const at = (type: string) => {
    const frame = frames.find((f) => f.type === type);
    if (!frame) throw new Error(`run stream had no ${type}`);
    return frame.receivedPerf - t0;
  };
  return { headers, runStarted: at('RUN_STARTED'), firstContent: at('TEXT_MESSAGE_CONTENT'), runFinished: at('RUN_FINISHED') };
}

function rows(section: string, label: string, timings: RunTiming[], note?: string): Row[] {
  const pick = (k: keyof RunTiming) => timings.map((t) => t[k]);
  return [
    distribution(section, `${label}: first byte (response headers)`, pick('headers')),
    distribution(section, `${label}: RUN_STARTED received`, pick('runStarted')),
    distribution(section, `${label}: first TEXT_MESSAGE_CONTENT`, pick('firstContent')),
    distribution(section, `${label}: RUN_FINISHED received`, pick('runFinished'), note),
  ];
}

/** How much of a run the offline model spends sleeping on purpose: its words × 15 ms. */
export function offlineModelDelayMs(): number {
  const words = offlineAnswer([{ role: 'user', content: RUN_MESSAGE }]).match(/\S+\s*/g)?.length ?? 0;
  return words * OFFLINE_WORD_DELAY_MS;
}

/** CPU time the api and worker spent per run over a phase: where a run's cost goes. */
function cpuRow(label: string, used: Record<string, number>, runs: number): Row {
  const parts = Object.entries(used).map(([name, ms]) => `${name} ${Math.round(ms / runs)} ms`);
  return { section: 'c. runs', metric: `${label}: CPU per run`, n: runs, note: parts.join(', ') };
}

/** c. 20 sequential streamed runs, then 20 at once; each on a new task. */
export async function benchRunLatency(who: BenchCaller, processes: Watched, afterConcurrent: () => void): Promise<Row[]> {
  for (let i = 0; i < WARM_UP_RUNS; i++) await timedRun(who);
  let cpu = cpuMeter(processes);
  const sequential: RunTiming[] = [];
  for (let i = 0; i < RUNS; i++) sequential.push(await timedRun(who));
  const sequentialCpu = cpu();

  cpu = cpuMeter(processes);
  const started = performance.now();
  const concurrent = await Promise.all(Array.from({ length: RUNS }, () => timedRun(who)));
  const wall = performance.now() - started;
  const concurrentCpu = cpu();
  afterConcurrent();
  const seqWall = sequential.reduce((sum, t) => sum + t.runFinished, 0);
  return [
    ...rows('c. runs', 'sequential', sequential, perSecond(RUNS, seqWall, 'runs')),
    cpuRow('sequential', sequentialCpu, RUNS),
    ...rows('c. runs', `${RUNS} concurrent`, concurrent, `${perSecond(RUNS, wall, 'runs')} (wall ${Math.round(wall)} ms)`),
    cpuRow(`${RUNS} concurrent`, concurrentCpu, RUNS),
  ];
}
