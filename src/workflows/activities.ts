import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { eventWriteOptions, modelStepOptions, settingsOptions, snapshotOptions, toolCallOptions } from './activity-options.ts';

/** The activities the run workflow calls, each with its named option preset. */
export const { recordProgress } = proxyActivities<Activities>(eventWriteOptions);
export const { modelStep, planStep } = proxyActivities<Activities>(modelStepOptions);
export const { runTool } = proxyActivities<Activities>(toolCallOptions);
export const { loadRunSettings, hasStandingGrant, leaseSandbox } = proxyActivities<Activities>(settingsOptions);
export const { snapshotSandbox } = proxyActivities<Activities>(snapshotOptions);

export type ProgressInput = Parameters<Activities['recordProgress']>[0];
