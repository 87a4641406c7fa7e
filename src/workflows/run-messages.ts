import { defineQuery } from '@temporalio/workflow';
import type { RunStatus } from '../shared/run-status.ts';

/** The run's current status, as the workflow sees it. */
export const runStatusQuery = defineQuery<RunStatus>('runStatus');
