/**
 * A real pseudo-terminal for interactive CLI tests: a tmux server on a socket of its own, one
 * session running a command; the test reads the screen (capture-pane) and types (send-keys).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

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
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = this.screen();
      if (pattern.test(last)) return last;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`screen never matched ${pattern} in ${timeoutMs} ms:\n${last}`);
  }

  /** Ends the session's tmux server (and the command in it). */
  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
