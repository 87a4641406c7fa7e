import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  eventWriteOptions,
  localBookkeepingOptions,
  modelStepOptions,
  settingsOptions,
  snapshotOptions,
  toolCallOptions,
} from './activity-options.ts';

/** The activities the run workflow calls, each with its named option preset. */
export const { recordProgress } = proxyActivities<Activities>(eventWriteOptions);
export const { modelStep, planStep } = proxyActivities<Activities>(modelStepOptions);
export const { runTool } = proxyActivities<Activities>(toolCallOptions);
export const { loadRunSettings, hasStandingGrant, leaseSandbox } = proxyActivities<Activities>(settingsOptions);
export const { snapshotSandbox } = proxyActivities<Activities>(snapshotOptions);

/**
 * The run's bookkeeping (status, events, policy reads) as local activities: short database
 * calls run by the worker inside the workflow task, with no round trip through a task queue
 * (LOCAL_BOOKKEEPING_PATCH; runs started before it keep the regular activities above).
 */
export const local = proxyLocalActivities<Activities>(localBookkeepingOptions);

/** The bookkeeping calls a run makes, regular or local. */
export type Bookkeeping = Pick<Activities, 'recordProgress' | 'loadRunSettings' | 'hasStandingGrant'>;
export const regularBookkeepingCalls: Bookkeeping = { recordProgress, loadRunSettings, hasStandingGrant };
export const localBookkeepingCalls: Bookkeeping = {
  recordProgress: local.recordProgress,
  loadRunSettings: local.loadRunSettings,
  hasStandingGrant: local.hasStandingGrant,
};

export type ProgressInput = Parameters<Activities['recordProgress']>[0];
export type ProgressStored = Awaited<ReturnType<Activities['recordProgress']>>;
