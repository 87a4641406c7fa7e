import type { TestProject } from 'vitest/node';
import { bundleWorkflowsOnce } from './support/workflow-bundle.ts';

/** The unit tier's setup: no stack, only today's workflow code bundled for the replay tests. */
export default async function setup(project: TestProject) {
  project.provide('workflowBundle', await bundleWorkflowsOnce());
}
