import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Search attributes set on every run workflow, so operators can find runs in
 * the Temporal Web UI (e.g. `RunStatus = "executing" AND OrgId = "org_…"`).
 * They must be registered on the namespace (the dev server gets them as flags).
 */
export const TaskIdAttr = defineSearchAttributeKey('TaskId', 'KEYWORD');
export const AgentIdAttr = defineSearchAttributeKey('AgentId', 'KEYWORD');
export const OrgIdAttr = defineSearchAttributeKey('OrgId', 'KEYWORD');
export const RunStatusAttr = defineSearchAttributeKey('RunStatus', 'KEYWORD');
export const RunModeAttr = defineSearchAttributeKey('RunMode', 'KEYWORD');

export const runSearchAttributes = [TaskIdAttr, AgentIdAttr, OrgIdAttr, RunStatusAttr, RunModeAttr];
