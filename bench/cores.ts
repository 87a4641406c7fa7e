import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { postgresPids } from './proc.ts';

/**
 * BENCH_TEMPORAL_CORE=1: the Temporal dev server gets CPU 0 to itself and every other process
 * of the bench (api, worker, PostgreSQL, the bench with the floor's worker and clients) shares the
 * others, as in a production deployment, where Temporal runs on machines of its own. The floor is
 * then bound by the Temporal server alone, and the throughput rows show how close ours comes to it.
 * Returns what undoes it (PostgreSQL is the machine's, not the bench's). Linux only (taskset).
 */
export function giveTemporalItsOwnCore(temporalPid: number, ours: number[]): () => void {
  const cores = availableParallelism();
  if (cores < 2) throw new Error('BENCH_TEMPORAL_CORE needs at least 2 CPUs');
  const rest = `1-${cores - 1}`;
  const taskset = (pid: number, cpus: string) => execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  const pin = (pid: number, cpus: string) => {
    try {
      taskset(pid, cpus);
    } catch {
      // the process ended meanwhile
    }
  };
  // Not swallowed: without taskset (or the right to use it) the bench would print unpinned figures as pinned ones.
  taskset(temporalPid, '0');
  // PostgreSQL's backends fork from its postmaster, so pinning every postgres process covers new connections too.
  for (const pid of [...ours, ...postgresPids()]) pin(pid, rest);
  return () => {
    for (const pid of postgresPids()) pin(pid, `0-${cores - 1}`);
  };
}
