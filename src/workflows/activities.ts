import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  eventWriteOptions,
  localBookkeepingOptions,
  modelStepOptions,
  settingsOptions,
  toolCallOptions,
} from './activity-options.ts';

/** The activities the run workflow calls, each with its named option preset. */
export const { recordProgress } = proxyActivities<Activities>(eventWriteOptions);
export const { modelStep, planStep } = proxyActivities<Activities>(modelStepOptions);
export const { runTool } = proxyActivities<Activities>(toolCallOptions);
export const { leaseSandbox } = proxyActivities<Activities>(settingsOptions);

/**
 * The run's bookkeeping (status, events, policy reads) as local activities: short database
 * calls run by the worker inside the workflow task, with no round trip through a task queue.
 * Update handlers write with the regular `recordProgress` instead (RunState.recordFromHandler).
 */
export const bookkeeping = proxyLocalActivities<Activities>(localBookkeepingOptions);

export type ProgressInput = Parameters<Activities['recordProgress']>[0];
export type ProgressStored = Awaited<ReturnType<Activities['recordProgress']>>;
