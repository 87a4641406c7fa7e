import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/config.ts';

/**
 * The small chaos run: `npm run chaos` with 3 clients and one fault of each kind
 * (kill -9 worker, api, Temporal; PostgreSQL restart), on its own restartable
 * stack. The script checks every run and exits non-zero on any loss.
 */
describe('chaos, one fault of each kind', () => {
  it('every run completes with every event exactly once, in order, as stored', async () => {
    const { code, stdout, stderr } = await runChaos(['--clients', '3', '--rounds', '1']);
    const summary = /^faults=(\d+) runs=(\d+) lost=(\d+) duplicated=(\d+) reordered=(\d+)$/m.exec(stdout);
    expect(summary, `${stdout}\n${stderr.slice(-4000)}`).not.toBeNull();
    const [faults, runs, lost, duplicated, reordered] = summary!.slice(1).map(Number);
    expect({ faults, lost, duplicated, reordered }).toEqual({ faults: 4, lost: 0, duplicated: 0, reordered: 0 });
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(stdout).toMatch(/not_completed=0 history_mismatch=0 text_mismatch=0 orphans=0 /);
    expect(code, stdout).toBe(0);
  }, 900_000);
});

function runChaos(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'scripts', 'chaos.ts'), ...args], { cwd: projectRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
