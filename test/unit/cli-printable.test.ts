import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { printable, printableJson } from '../../packages/cli/src/printable.ts';
import { table, Terminal } from '../../packages/cli/src/terminal.ts';

/** Every C0 control but tab and newline, DEL, and every C1 control. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('the CLI prints no control characters from the service', () => {
  it('printable drops whole escape sequences: OSC (BEL or ST), CSI, DCS, 8-bit CSI', () => {
    expect(printable('a\x1b]0;pwned\x07b')).toBe('ab');
    expect(printable('a\x1b]0;pwned title\x1b\\b')).toBe('ab');
    expect(printable('a\x1b]52;c;cHduZWQ=\x07b')).toBe('ab'); // clipboard write
    expect(printable('\x1b[2J\x1b[Hclean')).toBe('clean');
    expect(printable('\x1b[31mred\x1b[0m')).toBe('red');
    expect(printable('\x1bP+q544e\x1b\\x')).toBe('x');
    expect(printable('a\x9b2Jb')).toBe('ab');
  });

  it('printable drops bare controls (ESC, BEL, backspace, CR, DEL, C1) and keeps newline, tab and other text', () => {
    expect(printable('a\x1bb')).toBe('ab');
    expect(printable('ding\x07')).toBe('ding');
    expect(printable('secret\rshown')).toBe('secretshown');
    expect(printable('line\r\nnext')).toBe('line\nnext');
    expect(printable('x\x08\x7f\x85\x9b\x9c\x9dy')).toBe('xy');
    expect(printable('col\tumn\nnext ✓ — ünïcode 🙂')).toBe('col\tumn\nnext ✓ — ünïcode 🙂');
    // An unterminated sequence (a delta cut mid-sequence) loses its ESC: what is left is text, not a command.
    expect(printable('\x1b]0;pwn')).not.toMatch(CONTROL);
    const every = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');
    expect(printable(every)).toBe(
      '\t\n' + Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join(''),
    );
  });

  it('printableJson escapes what JSON.stringify leaves raw (DEL, C1), so the line parses to the same value', () => {
    const value = { delta: 'a\x1b]0;pwned\x07\x9b2J\x7fz' };
    const line = printableJson(value);
    expect(line).not.toMatch(CONTROL);
    expect(JSON.parse(line)).toEqual(value);
    expect(printableJson(value, 2)).toContain('\n  "delta"');
  });

  it('Terminal: text, notes, prints, tables and JSON lines carry none; its own colors still do', async () => {
    const out = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    const err = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.WriteStream;
    const read = (s: NodeJS.WriteStream) => ((s as unknown as PassThrough).read() as Buffer | null)?.toString() ?? '';
    const term = new Terminal(out, err);
    term.text('You said: \x1b]0;pwned\x07 and \x1b[2J');
    term.endText();
    term.print(table(['TITLE'], [['\x1b[2Jtitle\x07']]));
    term.json({ delta: '\x1b]0;pwned\x07\x9b' });
    const stdout = read(out);
    expect(stdout).not.toMatch(CONTROL);
    expect(stdout).toContain('You said:  and \n');
    expect(stdout).toContain('title\n');
    term.note('✗ run failed: \x1b]0;pwned\x07boom', 'red');
    term.progress('← tool \x1b[2Jresult');
    const stderr = read(err);
    expect(stderr).toContain('boom');
    expect(stderr).toContain('result');
    expect(stderr).not.toContain('pwned');
    expect(stderr).not.toContain('\x1b[2J');
    // What remains are only the SGR colors the terminal adds itself (stderr is a terminal here, unless NO_COLOR).
    expect(stderr.replace(/\x1b\[\d+(;\d+)*m/g, '')).not.toMatch(CONTROL);
  });
});
