/**
 * Crash points for fault tests: a process started with `ARS_FAULT=<point>` kills itself
 * with SIGKILL when it reaches that point, the way a power cut or an OOM kill would.
 * Unset in every real deployment; the names are listed in docs/reliability.md.
 */
export type FaultPoint = 'after-run-commit' | 'after-run-end-stored';

export function injectFault(point: FaultPoint): void {
  if (process.env.ARS_FAULT === point) process.kill(process.pid, 'SIGKILL');
}
