import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Answer, InputType, PendingRequest } from '../shared/input-requests.ts';
import type { RunStatus } from '../shared/run-status.ts';

/** The run's current status, as the workflow sees it. */
export const runStatusQuery = defineQuery<RunStatus>('runStatus');

/** The question the run waits on, if any. */
export const pendingRequestQuery = defineQuery<PendingRequest | null>('pendingRequest');

export interface SteeringComment {
  commentId: string;
  content: string;
}

/**
 * A steering comment. A Signal, not an Update: the api has already stored the
 * comment and checked the run is active, and there is nothing to answer with.
 */
export const commentSignal = defineSignal<[SteeringComment]>('comment');

export interface AnswerInput {
  requestId: string;
  runId: string;
  inputType: InputType;
  answer: Answer;
  answeredBy: { userId: string; role: string };
}

/**
 * An answer to the pending request. An Update, not a Signal: its validator
 * refuses a stale or foreign request_id, a wrong type, a malformed answer or a
 * member answering a sensitive approval before anything changes, so the api can
 * tell the client the truth. Validators are synchronous and throw ApplicationFailure.
 */
export const answerUpdate = defineUpdate<{ message: string }, [AnswerInput]>('answer');

/** Cancel the run: STOPPING is written before the update returns; the run then ends `cancelled`. */
export const cancelUpdate = defineUpdate<{ message: string }, [{ requestedBy: string }]>('cancel');

/** Pause at the next safe point (before a model step or a tool call). */
export const pauseUpdate = defineUpdate<{ message: string }, [{ requestedBy: string }]>('pause');

/** Continue a paused run (or withdraw a pause that has not taken effect yet). */
export const resumeUpdate = defineUpdate<{ message: string }, [{ requestedBy: string }]>('resume');

/** A run of the org ended: a run waiting for a concurrency slot tries again now rather than at its next poll. */
export const slotFreedSignal = defineSignal('slotFreed');

/** ApplicationFailure types of refused updates; the api maps them to HTTP statuses. */
export const refusals = {
  notPending: 'RequestNotPending', // 409
  invalidAnswer: 'InvalidAnswer', // 422
  forbidden: 'AnswerForbidden', // 403
  notActive: 'RunNotActive', // 409
} as const;
