import type { ChildProcess } from 'node:child_process';
import { stopChild } from '../processes/lifecycle.ts';

/** Ctrl-C, a service manager's stop, and a closed terminal (SIGHUP: PostgreSQL takes it as "reload" and would outlive us). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Exits in a row (within the window) after which a child is given up on: it cannot start, restarting it would only loop. */
const MAX_EXITS = 5;
const EXIT_WINDOW_MS = 60_000;
/** The first restart's delay; each exit within the window doubles it. */
const FIRST_DELAY_MS = 500;

export interface SupervisorOptions {
  firstDelayMs?: number;
}

export interface SupervisorEvents {
  log(message: string): void;
  /** It died of a stop signal: the whole process group is being stopped (Ctrl-C, a closed terminal). */
  stopRequested(): void;
  /** It exited MAX_EXITS times within the window. */
  gaveUp(why: string): void;
}

/**
 * A process the start command keeps running, as a service manager would: started again when it
 * exits on its own (a crash, kill -9, a drained exit after `kill`), after a delay that doubles with
 * each exit in a row; given up on after too many exits within a minute.
 */
export class Supervised {
  private child: ChildProcess;
  private exits: number[] = [];
  private restart: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Set once a child said it is ready (a message `{type: 'ready'}` on its IPC channel). */
  private readySent = false;

  constructor(
    readonly name: string,
    private readonly spawnChild: () => ChildProcess,
    private readonly events: SupervisorEvents,
    private readonly options: SupervisorOptions = {},
  ) {
    this.child = this.launch();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get ready(): boolean {
    return this.readySent;
  }

  /** Stops it for good: no restart after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restart);
    await stopChild(this.child);
  }

  private launch(): ChildProcess {
    const child = this.spawnChild();
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    child.on('message', (message: { type?: string } | null) => {
      if (message?.type === 'ready') this.readySent = true;
    });
    return child;
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopped || child !== this.child) return;
    const how = signal ?? `code ${code}`;
    if (signal && (STOP_SIGNALS as readonly string[]).includes(signal)) {
      this.events.log(`${this.name} stopped (${how}); stopping`);
      return this.events.stopRequested();
    }
    const now = Date.now();
    this.exits = [...this.exits.filter((at) => now - at < EXIT_WINDOW_MS), now];
    if (this.exits.length >= MAX_EXITS) {
      return this.events.gaveUp(
        `${this.name} exited ${MAX_EXITS} times within ${EXIT_WINDOW_MS / 1000} s (last: ${how})`,
      );
    }
    const delay = (this.options.firstDelayMs ?? FIRST_DELAY_MS) * 2 ** (this.exits.length - 1);
    this.events.log(`${this.name} exited (${how}); starting it again in ${delay / 1000} s`);
    this.restart = setTimeout(() => {
      if (!this.stopped) this.child = this.launch();
    }, delay);
  }
}
