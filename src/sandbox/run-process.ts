import { spawn, type ChildProcess, type IOType } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** What a sandboxed command produced. Field names are the run_command tool's output. */
export interface CommandResult {
  /** null when the command was killed (timeout, output flood). */
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  /** stdout + stderr exceeded the output cap; the rest was dropped (and the command killed if it kept flooding). */
  truncated: boolean;
  duration_ms: number;
}

export interface RunProcessOptions {
  timeoutMs: number;
  /** Cap on stdout + stderr together. */
  maxOutputBytes: number;
  /** Aborting kills the whole process group; runProcess then rejects with the signal's reason. */
  signal?: AbortSignal;
  env: Record<string, string>;
  /** Bytes the program reads from file descriptor 3 (bwrap --seccomp 3). */
  fd3?: Buffer;
  /**
   * Runs once bwrap has made the sandbox and before the command starts (bwrap
   * `--info-fd 4 --block-fd 5`), with the pid of the sandbox's first process. A throw
   * kills the sandbox, and runProcess rejects with it.
   */
  beforeRun?: (sandboxPid: number) => Promise<void>;
}

/** The descriptors bwrap reports the sandbox's pid on, and waits on before running the command. */
export const INFO_FD = 4;
export const BLOCK_FD = 5;

/** Output past the cap is read and dropped until this many caps have arrived; then the command is flooding and is killed. */
const FLOOD_FACTOR = 4;
/** After the process exits, how long to wait for its pipes to close (a leaked descriptor must not hang the call). */
const CLOSE_GRACE_MS = 2000;

/**
 * Runs a program in its own process group (detached) and kills the whole group
 * (SIGKILL to -pid) on timeout, on output flood and on abort.
 */
export function runProcess(file: string, args: string[], opts: RunProcessOptions): Promise<CommandResult> {
  if (opts.signal?.aborted) return Promise.reject(abortReason(opts.signal));
  const started = performance.now();
  const stdio: IOType[] = [
    'ignore',
    'pipe',
    'pipe',
    opts.fd3 ? 'pipe' : 'ignore',
    ...(opts.beforeRun ? (['pipe', 'pipe'] as const) : []),
  ];
  const child: ChildProcess = spawn(file, args, { detached: true, stdio, env: opts.env, cwd: '/' });
  const stdout = child.stdout!;
  const stderr = child.stderr!;
  if (opts.fd3) {
    const fd3 = child.stdio[3] as Writable;
    fd3.on('error', () => {}); // a program that exits early closes it; its exit code says why
    fd3.end(opts.fd3);
  }
  let gateError: unknown;
  if (opts.beforeRun) {
    const before = opts.beforeRun;
    const fds = child.stdio as unknown as (Readable & Writable)[];
    const info: Readable = fds[INFO_FD]!;
    const block: Writable = fds[BLOCK_FD]!;
    block.on('error', () => {}); // bwrap gone before the release: its exit says why
    let json = '';
    info.on('data', (d: Buffer) => (json += d.toString('utf8')));
    info.once('end', () => {
      // No pid: bwrap failed before making the sandbox, and its exit code and stderr say why.
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(json)?.[1];
      if (pid === undefined) return;
      before(Number(pid)).then(
        () => block.end('go'),
        (err: unknown) => {
          gateError = err;
          killGroup();
        },
      );
    });
  }
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  const cut = { stdout: false, stderr: false };
  let kept = 0;
  let seen = 0;
  let timedOut = false;
  let aborted = false;

  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    seen += chunk.length;
    const room = opts.maxOutputBytes - kept;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      chunks[stream].push(part);
      kept += part.length;
    }
    if (chunk.length > room) cut[stream] = true;
    if (seen > opts.maxOutputBytes * FLOOD_FACTOR) killGroup();
  };
  stdout.on('data', collect('stdout'));
  stderr.on('data', collect('stderr'));

  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, opts.timeoutMs);
  const onAbort = () => {
    aborted = true;
    killGroup();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  return new Promise<CommandResult>((resolve, reject) => {
    let graceTimer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (err) => {
      cleanup();
      killGroup();
      reject(err);
    });
    child.once('exit', () => {
      // Whatever the command left behind in its group goes with it.
      killGroup();
      graceTimer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
      }, CLOSE_GRACE_MS);
    });
    child.once('close', (code) => {
      cleanup();
      if (aborted) return reject(abortReason(opts.signal!));
      if (gateError !== undefined) return reject(gateError);
      const text = (stream: 'stdout' | 'stderr') =>
        Buffer.concat(chunks[stream]).toString('utf8') +
        (cut[stream]
          ? `\n[output truncated: stdout and stderr together are capped at ${opts.maxOutputBytes} bytes]`
          : '');
      resolve({
        exit_code: timedOut ? null : code,
        stdout: text('stdout'),
        stderr: text('stderr'),
        timed_out: timedOut,
        truncated: cut.stdout || cut.stderr,
        duration_ms: Math.round(performance.now() - started),
      });
    });
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('command cancelled');
}
