/**
 * The `agent-run` process: parses argv, runs the command, prints an error as one line on stderr,
 * and exits with the command's exit code (see exit-codes.ts).
 */
import { CommanderError } from 'commander';
import { outcome } from './context.ts';
import { ExitCode, exitCodeOf } from './exit-codes.ts';
import { printable } from './printable.ts';
import { buildProgram } from './program.ts';
import { colorsFor } from './terminal.ts';
import { styleText } from 'node:util';

/** Runs the CLI with `argv` (process.argv form) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return outcome.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version'
        ? 0
        : ExitCode.usage;
    }
    const message = err instanceof Error ? err.message : String(err);
    // The message is often the service's `detail`, which may quote what a caller sent.
    const line = `error: ${printable(message)}`;
    process.stderr.write(`${colorsFor(process.stderr) ? styleText('red', line, { validateStream: false }) : line}\n`);
    return exitCodeOf(err);
  }
}

const code = await main(process.argv);
// Exit now: an idle keep-alive socket or a paused stdin must not hold the process open.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(code);
