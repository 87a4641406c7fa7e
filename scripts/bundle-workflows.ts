import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { projectRoot } from '../src/config.ts';
import { WORKFLOW_BUNDLE_FILE } from '../src/worker/workflow-code.ts';

/**
 * Second step of `npm run build` (after tsc): bundles the compiled workflows in
 * dist/workflows into dist/workflow-bundle.js, which the worker loads when it runs from dist.
 */
const dist = path.join(projectRoot, 'dist');
const { code } = await bundleWorkflowCode({ workflowsPath: path.join(dist, 'workflows', 'index.js') });
const out = path.join(dist, WORKFLOW_BUNDLE_FILE);
writeFileSync(out, code);
console.log(`build: workflow bundle ${path.relative(projectRoot, out)} (${Math.round(code.length / 1024)} KiB)`);
