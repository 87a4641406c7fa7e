import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { Supervised, type SupervisorEvents } from '../../src/main/supervised.ts';
import { isAlive } from '../../src/processes/lifecycle.ts';
import { eventually } from '../support/eventually.ts';

/** A child that runs `code` in node. */
const node = (code: string) => () => spawn(process.execPath, ['-e', code], { stdio: 'ignore' });

/** Events that record what the supervisor said and asked. */
function recorder() {
  const lines: string[] = [];
  const events = {
    lines,
    log: (m: string) => void lines.push(m),
    stopRequested: vi.fn<() => void>(),
    gaveUp: vi.fn<(why: string) => void>(),
  };
  return events satisfies SupervisorEvents;
}

describe('a supervised process', () => {
  it('is started again when it dies (kill -9), with a new pid, and not after stop()', async () => {
    const events = recorder();
    const child = new Supervised('sleeper', node('setInterval(() => {}, 1000)'), events, { firstDelayMs: 20 });
    const first = child.pid!;
    process.kill(first, 'SIGKILL');
    await eventually('a new process', () => expect(child.pid !== first && isAlive(child.pid!)).toBe(true), {
      timeout: 5000,
      interval: 50,
    });
    expect(events.lines).toEqual(['sleeper exited (SIGKILL); starting it again in 0.02 s']);
    const second = child.pid!;
    await child.stop();
    expect(isAlive(second)).toBe(false);
    await new Promise((r) => setTimeout(r, 100)); // five restart delays: no restart is nothing to wait for
    expect(child.pid).toBe(second);
    expect(events.gaveUp).not.toHaveBeenCalled();
  });

  it('gives up after 5 exits within a minute, the delay doubling each time', async () => {
    const events = recorder();
    new Supervised('crasher', node('process.exit(3)'), events, { firstDelayMs: 10 });
    await eventually('the give-up', () => expect(events.gaveUp.mock.calls.length).toBe(1), {
      timeout: 10_000,
      interval: 50,
    });
    expect(events.gaveUp).toHaveBeenCalledWith('crasher exited 5 times within 60 s (last: code 3)');
    expect(events.lines).toEqual(
      [0.01, 0.02, 0.04, 0.08].map((s) => `crasher exited (code 3); starting it again in ${s} s`),
    );
  });

  it('dying of a stop signal (Ctrl-C, a closed terminal) asks for the whole stop instead of a restart', async () => {
    const events = recorder();
    const child = new Supervised('sleeper', node('setInterval(() => {}, 1000)'), events, { firstDelayMs: 10 });
    const pid = child.pid!;
    process.kill(pid, 'SIGHUP');
    await eventually('the stop request', () => expect(events.stopRequested.mock.calls.length).toBe(1), {
      timeout: 5000,
      interval: 50,
    });
    await new Promise((r) => setTimeout(r, 100)); // ten restart delays: no restart is nothing to wait for
    expect(child.pid).toBe(pid);
    expect(events.lines).toEqual(['sleeper stopped (SIGHUP); stopping']);
  });
});
