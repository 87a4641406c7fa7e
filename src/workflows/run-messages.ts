import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RunStatus } from '../shared/run-status.ts';

/** The run's current status, as the workflow sees it. */
export const runStatusQuery = defineQuery<RunStatus>('runStatus');

export interface SteeringComment {
  commentId: string;
  content: string;
}

/**
 * A steering comment. A Signal, not an Update: the api has already stored the
 * comment and checked the run is active, and there is nothing to answer with.
 */
export const commentSignal = defineSignal<[SteeringComment]>('comment');
