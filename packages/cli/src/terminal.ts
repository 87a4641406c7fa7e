/**
 * The CLI's writes to the terminal: the answer on stdout, dim progress lines on stderr, a spinner
 * while waiting. Colors and the spinner only when stderr is a terminal and NO_COLOR is unset.
 * Every write drops the control characters of what it is given (printable.ts): the text comes
 * from the service, and only our own styling may reach the terminal as escape sequences.
 */
import { styleText } from 'node:util';
import yoctoSpinner, { type Spinner } from 'yocto-spinner';
import { printable, printableJson } from './printable.ts';

type Style = Parameters<typeof styleText>[0];

/** Whether to color (and animate) what goes to `stream`. */
export function colorsFor(stream: NodeJS.WriteStream, env: Record<string, string | undefined> = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.TERM === 'dumb') return false;
  return Boolean(stream.isTTY);
}

/** Writes progress and results; one per process. */
export class Terminal {
  readonly color: boolean;
  private spinner: Spinner | undefined;
  /** The answer text on stdout ended without a newline (a progress line must not join it). */
  private midLine = false;

  constructor(
    private readonly out: NodeJS.WriteStream = process.stdout,
    private readonly err: NodeJS.WriteStream = process.stderr,
  ) {
    this.color = colorsFor(err);
  }

  private style(format: Style | undefined, text: string): string {
    return this.color && format ? styleText(format, text, { validateStream: false }) : text;
  }

  /** Answer text, as it streams (stdout). */
  text(delta: string): void {
    const chunk = printable(delta);
    if (!chunk) return;
    this.stopSpinner();
    this.out.write(chunk);
    this.midLine = !chunk.endsWith('\n');
  }

  /** Ends the answer's line if it is open. */
  endText(): void {
    if (this.midLine) this.out.write('\n');
    this.midLine = false;
  }

  /** A dim status line (stderr). */
  progress(line: string): void {
    this.note(line, 'dim');
  }

  /** A line on stderr (ids, hints, errors), plain or in `format`. */
  note(line: string, format?: Style): void {
    this.stopSpinner();
    if (this.midLine && this.out.isTTY && this.err.isTTY) this.endText();
    this.err.write(`${this.style(format, printable(line))}\n`);
  }

  /** A result line on stdout (tables, confirmations of commands). */
  print(line: string): void {
    this.stopSpinner();
    this.out.write(`${printable(line)}\n`);
  }

  /** `value` as one JSON line on stdout (or indented), control characters escaped. */
  json(value: unknown, indent?: number): void {
    this.stopSpinner();
    this.out.write(`${printableJson(value, indent)}\n`);
  }

  /** Shows a spinner with `label` until the next write (only on a color-capable terminal). */
  wait(label: string): void {
    if (!this.color || this.midLine) return;
    if (this.spinner) {
      this.spinner.text = label;
      return;
    }
    this.spinner = yoctoSpinner({ text: label, stream: this.err, handleSignals: false }).start();
  }

  stopSpinner(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }
}

/** Aligned columns with a header row; cells are cut to `max` characters. */
export function table(headers: string[], rows: string[][], max = 60): string {
  const cut = (s: string) => {
    const flat = printable(s).replace(/\s+/g, ' ');
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  };
  const cells = [headers, ...rows.map((r) => r.map(cut))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
