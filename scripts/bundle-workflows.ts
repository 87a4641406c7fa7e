import { copyFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { projectRoot } from '../src/config.ts';
import {
  WORKFLOW_BUNDLE_FILE,
  WORKFLOW_BUNDLE_TRACED_FILE,
  workflowBundleOptions,
} from '../src/worker/workflow-code.ts';

/**
 * Second step of `npm run build` (after tsc): bundles the workflows twice, plain and with the
 * tracing interceptors (a worker with tracing on loads that one), from their TypeScript sources as
 * the tests do (webpack reads .ts as `javascript/auto`, which the on-demand `require`s of
 * src/workflows/lazy-modules.ts need; the compiled .js are strict ESM), and
 * copies the /docs page's browser script next to dist/api/docs.js, so the production image needs
 * neither webpack at boot nor the 240 MB @scalar/api-reference package.
 */
const dist = path.join(projectRoot, 'dist');
const workflows = path.join(projectRoot, 'src', 'workflows');
const workflowsPath = path.join(workflows, 'index.ts');
const bundles = [
  { file: WORKFLOW_BUNDLE_FILE, workflowInterceptorModules: [] },
  { file: WORKFLOW_BUNDLE_TRACED_FILE, workflowInterceptorModules: [path.join(workflows, 'tracing-interceptors.ts')] },
];
for (const { file, workflowInterceptorModules } of bundles) {
  const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(workflowsPath), workflowInterceptorModules });
  writeFileSync(path.join(dist, file), code);
  console.log(`build: workflow bundle dist/${file} (${Math.round(code.length / 1024)} KiB)`);
}
const scalar = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
copyFileSync(scalar, path.join(dist, 'api', 'scalar.standalone.js'));
console.log('build: /docs script dist/api/scalar.standalone.js');
