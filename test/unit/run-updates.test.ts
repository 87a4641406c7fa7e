import { ServiceError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it, vi } from 'vitest';
import { sendRunUpdate } from '../../src/api/services/run-updates.ts';
import { httpErrorOf } from '../../src/api/errors.ts';
import { DomainError } from '../../src/shared/domain-error.ts';
import { answerUpdate, cancelUpdate, refusals } from '../../src/workflows/run-messages.ts';

/** What the server answers when the workflow task holding an update failed before accepting it. */
const taskFailed = () =>
  new ServiceError('Workflow Update failed', {
    cause: Object.assign(
      new Error(
        '9 FAILED_PRECONDITION: Unable to perform workflow execution update due to unexpected workflow task failure.',
      ),
      {
        code: 9,
        details: 'Unable to perform workflow execution update due to unexpected workflow task failure.',
      },
    ),
  });

/** A Temporal client whose update calls answer with `outcomes` in turn (an Error is thrown). */
function clientAnswering(...outcomes: (Error | { message: string })[]) {
  const executeUpdate = vi.fn(async (_update: unknown, _options: { updateId?: string }) => {
    const next = outcomes.shift()!;
    if (next instanceof Error) throw next;
    return next;
  });
  const temporal = { workflow: { getHandle: () => ({ executeUpdate }) } } as unknown as Client;
  return { temporal, executeUpdate };
}

describe('sending a run update', () => {
  it('sends it again, with the same update id, when its workflow task failed before accepting it', async () => {
    const { temporal, executeUpdate } = clientAnswering(taskFailed(), taskFailed(), { message: 'Cancelling' });
    await expect(sendRunUpdate(temporal, 'run_1', cancelUpdate, { requestedBy: 'usr_1' })).resolves.toEqual({
      message: 'Cancelling',
    });
    expect(executeUpdate).toHaveBeenCalledTimes(3);
    const ids = executeUpdate.mock.calls.map(([, options]) => options.updateId);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toEqual(expect.any(String));
  });

  it('gives up after three resends, and never resends other failures', async () => {
    const failing = clientAnswering(taskFailed(), taskFailed(), taskFailed(), taskFailed(), { message: 'never' });
    await expect(sendRunUpdate(failing.temporal, 'run_1', cancelUpdate, { requestedBy: 'usr_1' })).rejects.toThrow(
      'Workflow Update failed',
    );
    expect(failing.executeUpdate).toHaveBeenCalledTimes(4);

    const other = clientAnswering(
      new ServiceError('Workflow Update failed', {
        cause: Object.assign(new Error('unavailable'), { code: 14, details: 'unavailable' }),
      }),
    );
    await expect(sendRunUpdate(other.temporal, 'run_1', cancelUpdate, { requestedBy: 'usr_1' })).rejects.toThrow(
      'Workflow Update failed',
    );
    expect(other.executeUpdate).toHaveBeenCalledTimes(1);
  });

  it('answers a refused answer with a 422 in the spec format, at the place the workflow names (the body, from a worker that names none)', async () => {
    const refused = (details?: unknown[]) =>
      new WorkflowUpdateFailedError(
        'Workflow Update failed',
        ApplicationFailure.create({
          message: 'value must be a number',
          type: refusals.invalidAnswer,
          nonRetryable: true,
          details,
        }),
      );
    const answer = { requestId: 'req_1', runId: 'run_1', inputType: 'number', answer: { value: 'many' } } as never;
    const placed = await sendRunUpdate(
      clientAnswering(refused([{ loc: ['value'], msg: 'value must be a number', type: 'value_error' }])).temporal,
      'run_1',
      answerUpdate,
      answer,
    ).catch((e: unknown) => e);
    expect(placed).toBeInstanceOf(DomainError);
    expect(httpErrorOf(placed as DomainError)).toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'value'], msg: 'value must be a number', type: 'value_error' }],
    });
    const unplaced = await sendRunUpdate(clientAnswering(refused()).temporal, 'run_1', answerUpdate, answer).catch(
      (e: unknown) => e,
    );
    expect(httpErrorOf(unplaced as DomainError)).toMatchObject({
      status: 422,
      detail: [{ loc: ['body'], msg: 'value must be a number', type: 'value_error' }],
    });
  });
});
