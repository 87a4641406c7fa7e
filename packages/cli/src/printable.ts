/**
 * Text from the service made safe for a terminal. Model answers, tool results, task titles and
 * error messages are written by a model, a tool's target or another member of the org, and a
 * terminal obeys the control sequences in what it prints: retitle the window (OSC 0), clear the
 * screen (CSI 2J), move the cursor to rewrite lines above, set the clipboard (OSC 52) or make
 * some terminals type an answer back into the shell. Everything the CLI prints from the service
 * goes through here (Terminal does it for its writes).
 */
import stripAnsi from 'strip-ansi';

/**
 * Controls a sequence may leave behind, or that act alone: C0 but tab and newline (a bare ESC, BEL,
 * backspace, carriage return), DEL, and C1 (0x80-0x9f: 0x9b is CSI and 0x9d OSC to 8-bit terminals).
 */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` without escape sequences (CSI, OSC, DCS… via strip-ansi) and without any other control character but `\n` and `\t`. */
export function printable(text: string): string {
  return stripAnsi(text.replaceAll('\r\n', '\n')).replace(CONTROLS, '');
}

/**
 * `value` as JSON that carries no control character: JSON.stringify escapes C0, but leaves DEL and
 * C1 raw; they are escaped too (`\u009b`), so the line parses to the same value.
 */
export function printableJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
