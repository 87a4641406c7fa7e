import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { projectRoot } from '../../src/config.ts';
import { workflowBundleOptions } from '../../src/worker/workflow-code.ts';

/**
 * Bundles src/workflows once per test run (seconds of CPU) into a file named by WORKFLOW_BUNDLE, which
 * every worker process the tests start inherits (src/worker/workflow-code.ts) and every replay loads.
 */
export async function bundleWorkflowsOnce(): Promise<string> {
  if (process.env.WORKFLOW_BUNDLE) return process.env.WORKFLOW_BUNDLE;
  const dir = mkdtempSync(path.join(tmpdir(), 'ars-test-bundle-'));
  const { code } = await bundleWorkflowCode({
    ...workflowBundleOptions(path.join(projectRoot, 'src', 'workflows', 'index.ts')),
    logger: new DefaultLogger('WARN'),
  });
  const file = path.join(dir, 'workflow-bundle.js');
  writeFileSync(file, code);
  process.env.WORKFLOW_BUNDLE = file;
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return file;
}
