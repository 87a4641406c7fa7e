/**
 * Follows one run's stream to its end for `run` and `follow`: renders (or prints NDJSON), asks
 * human-input questions, and handles Ctrl-C (detach, or cancel with --cancel-on-interrupt).
 * Returns the exit code.
 */
import { userInputRequest, type AgentRunClient, type RunStream } from '@agent-run/client';
import { CliError, ExitCode, exitCodeOf } from './exit-codes.ts';
import { answerInteractively, PromptInterrupted, type InputQuestion } from './prompts.ts';
import { EventRenderer } from './render.ts';
import type { Terminal } from './terminal.ts';

export interface DriveOptions {
  /** NDJSON on stdout instead of text; questions are never prompted. */
  json: boolean;
  /** Ctrl-C cancels the run instead of detaching. */
  cancelOnInterrupt: boolean;
  /** Aborts the stream's HTTP request (the run itself goes on). */
  abort: AbortController;
}

/** Streams `stream` to its terminal event and returns the exit code. */
export async function drive(
  client: AgentRunClient,
  stream: RunStream,
  term: Terminal,
  opts: DriveOptions,
): Promise<number> {
  const renderer = new EventRenderer(term);
  let taskId: string | undefined;
  void stream.taskId.then(
    (id) => (taskId = id),
    () => {},
  );
  let detached = false;
  let cancelling = false;
  /** The open question's prompts: a SIGINT (not only Ctrl-C typed into a prompt) must end them too. */
  let prompting: AbortController | undefined;

  const detach = () => {
    detached = true;
    opts.abort.abort();
  };
  const onInterrupt = () => {
    prompting?.abort();
    if (opts.cancelOnInterrupt && !cancelling && taskId) {
      cancelling = true;
      term.note('cancelling the run… (Ctrl-C again to detach)');
      client.tasks.cancel(taskId).catch((err: unknown) => {
        term.note(`cancel failed: ${(err as Error).message}`);
        detach();
      });
      return;
    }
    detach();
  };
  process.on('SIGINT', onInterrupt);
  if (!opts.json) term.wait('starting');

  try {
    for await (const event of stream) {
      if (opts.json) term.json(event);
      else renderer.render(event);
      if (event.type === 'RUN_FINISHED') return ExitCode.completed;
      if (event.type === 'RUN_ERROR') return event.code === 'CANCELLED' ? ExitCode.cancelled : ExitCode.failed;
      // After a Ctrl-C, no new question: a detached stream is ending, a cancelled run is about to.
      const question = userInputRequest(event);
      if (question && !detached && !cancelling) {
        taskId ??= await stream.taskId;
        prompting = new AbortController();
        const outcome = await handleQuestion(client, taskId, question, term, opts.json, prompting.signal);
        // Ctrl-C typed into a prompt arrives as a key, not a signal: handle it as one (unless a signal ended the prompt).
        if (outcome === 'interrupted' && !prompting.signal.aborted) onInterrupt();
        else if (outcome === 'waiting') return ExitCode.inputRequired;
        prompting = undefined;
      }
    }
    if (detached) return detachedExit(term, taskId);
    throw new CliError('the stream ended before the run did', ExitCode.unreachable);
  } catch (err) {
    if (detached) return detachedExit(term, taskId);
    throw err;
  } finally {
    process.off('SIGINT', onInterrupt);
    term.stopSpinner();
  }
}

function detachedExit(term: Terminal, taskId: string | undefined): number {
  term.endText();
  term.note(
    taskId
      ? `detached; the run goes on. Follow it with: agent-run follow ${taskId}`
      : 'detached before the run started',
  );
  return ExitCode.interrupted;
}

/**
 * Answers a question in the terminal, if it is still the pending one (a followed stream replays
 * questions already answered). In --json mode or without a terminal, says how to answer and stops.
 */
async function handleQuestion(
  client: AgentRunClient,
  taskId: string,
  question: InputQuestion,
  term: Terminal,
  json: boolean,
  signal: AbortSignal,
): Promise<'answered' | 'waiting' | 'interrupted'> {
  const pending = await client.input.pending(taskId);
  if (!pending.pending || pending.request.request_id !== question.request_id) return 'answered';
  if (json || !process.stdin.isTTY) {
    term.note(`the run waits for input (${question.input_type}). Answer it with: agent-run answer ${taskId}`);
    return 'waiting';
  }
  term.stopSpinner();
  term.endText();
  term.progress('(Esc dismisses the question, Ctrl-C detaches)');
  for (;;) {
    let fields;
    try {
      fields = await answerInteractively(question, signal);
    } catch (err) {
      if (err instanceof PromptInterrupted) return 'interrupted';
      throw err;
    }
    try {
      await client.input.answer(taskId, question, fields);
      return 'answered';
    } catch (err) {
      const code = exitCodeOf(err);
      // 409: answered elsewhere meanwhile (or the run ended); the stream says what happens next.
      if (code === ExitCode.conflict) return 'answered';
      if (code !== ExitCode.usage) throw err;
      term.note(`not accepted: ${(err as Error).message}; try again`, 'red');
    }
  }
}
