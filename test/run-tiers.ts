/**
 * `npm test` after setup: two lanes at once, each a vitest process with a stack of its own (own
 * Temporal dev server and database, so neither's rate-limit counters or load reach the other's).
 *
 * - main: the shared tier, two files at a time on one stack;
 * - exclusive: lint and type checks, the unit tier, then the exclusive tier one file at a time. Its files
 *   mostly wait (on killed processes, cut connections, a browser), so on two cores they cost the main
 *   lane little, and the two lanes take about as long.
 *
 * The main lane streams; the exclusive lane's output is printed as one block when it ends (and kept
 * in test-artifacts/exclusive-lane.log). Exits non-zero if either lane fails.
 *
 * `--e2e` leaves out the unit tier and the checks (npm run test:e2e).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const e2eOnly = process.argv.includes('--e2e');

type Step = [command: string, ...args: string[]];

const mainLane: Step[] = [[bin('vitest'), 'run', '--project', 'shared']];
const exclusiveLane: Step[] = [
  ...(e2eOnly
    ? []
    : ([
        [bin('eslint'), '.'],
        [bin('prettier'), '--check', '--log-level', 'warn', '.'],
        [bin('tsc'), '-p', '.'],
        [bin('tsc'), '-p', 'console'],
      ] satisfies Step[])),
  [bin('vitest'), 'run', ...(e2eOnly ? [] : ['--project', 'unit']), '--project', 'exclusive'],
];

const children = new Set<ChildProcess>();

/** Runs every step in order (a failed check does not hide the tests' results); resolves with the first failure's exit code, 0 when all pass. */
async function runLane(steps: Step[], output: 'inherit' | NodeJS.WritableStream): Promise<number> {
  let failed = 0;
  for (const [command, ...args] of steps) {
    const child = spawn(command, args, {
      cwd: root,
      stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    if (output !== 'inherit') {
      output.write(`\n$ ${path.basename(command)} ${args.join(' ')}\n`);
      child.stdout!.pipe(output, { end: false });
      child.stderr!.pipe(output, { end: false });
    }
    const code = await new Promise<number>((resolve) =>
      child.on('close', (c, signal) => resolve(c ?? (signal ? 1 : 0))),
    );
    children.delete(child);
    if (code !== 0)
      (output === 'inherit' ? process.stdout : output).write(`\n${path.basename(command)} failed (${code})\n`);
    failed ||= code;
  }
  return failed;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    process.exit(130);
  });

mkdirSync(path.join(root, 'test-artifacts'), { recursive: true });
const logFile = path.join(root, 'test-artifacts', 'exclusive-lane.log');
const log = createWriteStream(logFile);

const [main, exclusive] = await Promise.all([
  runLane(mainLane, 'inherit'),
  runLane(exclusiveLane, log).then(async (code) => {
    await new Promise((resolve) => log.end(resolve));
    process.stdout.write(`\n──── exclusive lane (${logFile}) ────\n${readFileSync(logFile, 'utf8')}\n────\n`);
    return code;
  }),
]);
console.log(
  `main lane ${main === 0 ? 'passed' : `failed (${main})`}; exclusive lane ${exclusive === 0 ? 'passed' : `failed (${exclusive})`}`,
);
process.exit(main || exclusive);
