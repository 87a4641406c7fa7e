import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
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
  const taskset = (pid: number, cpus: string) =>
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
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

/**
 * BENCH_TEMPORAL_CPU=f (0 < f < 1, with BENCH_TEMPORAL_CORE=1): the Temporal dev server may use only
 * that share of its core (a CPU quota in a cgroup of its own, v1 or v2), so the rest of the bench has
 * 1/f times the server's CPU: a model of a machine with more cores, where the Temporal server is what
 * binds. Returns what undoes it. Linux only, as root.
 */
export function capTemporalCpu(temporalPid: number, share: number): () => void {
  if (!(share > 0 && share < 1)) throw new Error(`BENCH_TEMPORAL_CPU must be between 0 and 1, not ${share}`);
  const period = 100_000;
  const quota = Math.round(share * period);
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const root = v2 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/cpu';
  const group = path.join(root, `ars-bench-temporal-${temporalPid}`);
  mkdirSync(group);
  if (v2) writeFileSync(path.join(group, 'cpu.max'), `${quota} ${period}`);
  else {
    writeFileSync(path.join(group, 'cpu.cfs_period_us'), String(period));
    writeFileSync(path.join(group, 'cpu.cfs_quota_us'), String(quota));
  }
  writeFileSync(path.join(group, 'cgroup.procs'), String(temporalPid));
  return () => {
    try {
      writeFileSync(path.join(root, 'cgroup.procs'), String(temporalPid));
    } catch {
      // the server ended meanwhile
    }
    rmdirSync(group);
  };
}
