import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { cpuMs } from './proc.ts';

/** Cores, memory, CPU model and Node version, for the header of the output. */
export function describeMachine(): string {
  return `${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function processCpu(): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      cpu.set(Number(entry), cpuMs(Number(entry)));
    } catch {
      // The process ended while we looked.
    }
  }
  return cpu;
}

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 80);
  } catch {
    return `pid ${pid}`;
  }
};

/**
 * Other processes that used more than 5% of a core over `sampleMs`: a benchmark on a
 * shared machine must say what else was running.
 */
export async function busyProcesses(exclude: number[] = [], sampleMs = 1000): Promise<string[]> {
  const before = processCpu();
  await new Promise((r) => setTimeout(r, sampleMs));
  const after = processCpu();
  const busy: string[] = [];
  for (const [pid, ms] of after) {
    const share = (ms - (before.get(pid) ?? ms)) / sampleMs;
    if (pid !== process.pid && !exclude.includes(pid) && share > 0.05)
      busy.push(`${commandOf(pid)} (${Math.round(share * 100)}%)`);
  }
  return busy;
}
