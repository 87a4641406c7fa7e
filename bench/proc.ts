import { readdirSync, readFileSync } from 'node:fs';
import type { Pool } from 'pg';
import type { Row } from './stats.ts';

/** The processes the bench watches: name → pid. */
export type Watched = Record<string, number>;

/** VmRSS (resident now) and VmHWM (peak resident) of a process, in MiB, from /proc. */
export function residentMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** One row per process: resident memory now, and its peak so far. */
export function memoryRows(moment: string, processes: Watched): Row[] {
  return Object.entries(processes).map(([name, pid]) => {
    const { rss, peak } = residentMemory(pid);
    return {
      section: 'memory',
      metric: `${name} RSS, ${moment}`,
      n: 1,
      note: `${rss.toFixed(0)} MiB (peak so far ${peak.toFixed(0)} MiB)`,
    };
  });
}

/** User + system CPU time a process has used so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Every PostgreSQL process on this machine (server and backends). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

/** CPU time of every PostgreSQL process on this machine (server and backends), in ms. */
function postgresCpuMs(): number {
  let total = 0;
  for (const pid of postgresPids()) {
    try {
      total += cpuMs(pid);
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/**
 * Starts counting CPU time of the watched processes, and of PostgreSQL when asked (all of its
 * processes: the bench's database is the one in use); the returned function reads the difference.
 */
export function cpuMeter(processes: Watched, { postgres = false } = {}): () => Record<string, number> {
  const read = (): Record<string, number> => ({
    ...Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid)])),
    ...(postgres ? { PostgreSQL: postgresCpuMs() } : {}),
  });
  const start = read();
  return () => Object.fromEntries(Object.entries(read()).map(([name, ms]) => [name, ms - start[name]!]));
}

/** A CPU reading divided by `runs`, as "name 12.3" parts. */
export function perRun(cpu: Record<string, number>, runs: number): string {
  return Object.entries(cpu)
    .map(([name, ms]) => `${name} ${(ms / runs).toFixed(1)}`)
    .join(', ');
}

/** The pid of the Temporal dev server listening at `address` (its command line names the port), if found. */
export function findTemporalServer(address: string): number | undefined {
  const port = address.split(':').at(-1);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const portAt = args.indexOf('--port');
    if (args.includes('start-dev') && portAt >= 0 && args[portAt + 1] === port) return Number(entry);
  }
  return undefined;
}

/** Samples a process's VmRSS every `everyMs` until the returned function is called, which gives the highest reading (MiB). */
export function rssSampler(pid: number, everyMs = 200): () => number {
  let highest = residentMemory(pid).rss;
  const timer = setInterval(() => {
    highest = Math.max(highest, residentMemory(pid).rss);
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Math.max(highest, residentMemory(pid).rss);
  };
}

/**
 * The PostgreSQL backends serving `databaseName` (pg_stat_activity, read through `pool`): the
 * processes a stack's load grows. The embedded server's own processes are shared by every stack on
 * the machine and are left out.
 */
export async function databaseBackendPids(pool: Pool, databaseName: string): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    databaseName,
  ]);
  return rows.map((r) => r.pid);
}

/**
 * Summed resident memory of `pids`, in MiB: RSS (each counts every shared page it touched, so
 * PostgreSQL's shared buffers are counted once per backend) and PSS (shared pages divided among
 * the processes that map them, so the sum is what they hold together). Processes gone meanwhile, or
 * not readable (a server on another machine), are skipped; `processes` says how many were read.
 */
export function summedMemory(pids: number[]): { rss: number; pss: number; processes: number } {
  let rss = 0;
  let pss = 0;
  let processes = 0;
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
      rss += kib('Rss') / 1024;
      pss += kib('Pss') / 1024;
      processes++;
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
  return { rss, pss, processes };
}
