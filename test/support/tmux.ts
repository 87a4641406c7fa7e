/**
 * A real pseudo-terminal for interactive CLI tests: a tmux server on a socket of its own, one
 * session running a command; the test reads the screen (capture-pane) and types (send-keys).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { eventually } from './eventually.ts';

/** Whether tmux is installed (.ci/run installs it). */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export class TmuxSession {
  private readonly socket = `agent-run-test-${randomBytes(4).toString('hex')}`;
  private readonly name = 'cli';

  /** Starts `command` (a shell command line) in a 160x50 terminal with `env`. */
  constructor(command: string, env: Record<string, string>) {
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    this.tmux(['new-session', '-d', '-s', this.name, '-x', '160', '-y', '50', ...envArgs, command]);
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** The screen and its scrollback, as text. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-2000', '-t', this.name]);
  }

  /** Types keys: literal text with `literal`, else tmux key names (Enter, Down, Escape, C-c). */
  send(keys: string[], literal = false): void {
    this.tmux(['send-keys', '-t', this.name, ...(literal ? ['-l'] : []), ...keys]);
  }

  /** Waits until the screen matches `pattern`, returning the screen; fails with the screen after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    return eventually(
      `the screen to match ${pattern}`,
      () => {
        const screen = this.screen();
        if (!pattern.test(screen)) throw new Error(`the screen is:\n${screen}`);
        return screen;
      },
      { timeout: timeoutMs, interval: 150 },
    );
  }

  /** Ends the session's tmux server (and the command in it). */
  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
