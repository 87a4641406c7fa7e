import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, Runtime } from '@temporalio/worker';
import { WORKFLOW_TRACING_MODULE } from './tracing-options.ts';

/**
 * How every bundle of src/workflows is made (`npm run build`, the tests' bundle, a worker bundling
 * at start): the whole workflow module graph is preloaded, evaluated once into the reusable V8
 * context and shared by every workflow, instead of afresh for each one (about 1 ms of the worker's
 * CPU per run). The SDK deep-freezes preloaded modules, so they must keep no state of a run at
 * module level: ours keep none (module scope holds constants, functions, classes, activity
 * proxies and message definitions), nor does zod's library, which is preloaded too (lazy-modules.ts);
 * the schemas built with it load on demand, per workflow.
 */
export function workflowBundleOptions(workflowsPath: string): { workflowsPath: string; preloadModules: string[] } {
  return { workflowsPath, preloadModules: [workflowsPath] };
}

/** Where `npm run build` writes the prebuilt workflow bundle: dist/workflow-bundle.js. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';
/** The same with the tracing workflow interceptors (src/workflows/tracing-interceptors.ts) in it. */
export const WORKFLOW_BUNDLE_TRACED_FILE = 'workflow-bundle-traced.js';

/**
 * The workflow code a worker runs, as one bundle (its hash is the worker's build id: workflow-version.ts).
 * Compiled (running from dist/): the bundle `npm run build` prebuilt, so a worker starts without
 * webpack at boot. Under tsx (development, tests): `WORKFLOW_BUNDLE` when given and tracing is off,
 * else the workflow sources, bundled now (with the tracing interceptors when `traced`).
 */
export async function loadWorkflowCode(traced: boolean, prebuilt?: string): Promise<string> {
  const compiled = import.meta.filename.endsWith('.js');
  if (!compiled && prebuilt && !traced) return readFile(prebuilt, 'utf8');
  if (!compiled) {
    const { code } = await bundleWorkflowCode({
      ...workflowBundleOptions(path.join(import.meta.dirname, '..', 'workflows', 'index.ts')),
      workflowInterceptorModules: traced ? [WORKFLOW_TRACING_MODULE] : [],
      logger: Runtime.instance().logger,
    });
    return code;
  }
  const codePath = path.join(import.meta.dirname, '..', traced ? WORKFLOW_BUNDLE_TRACED_FILE : WORKFLOW_BUNDLE_FILE);
  if (!existsSync(codePath))
    throw new Error(`The prebuilt workflow bundle ${codePath} is missing: run \`npm run build\``);
  return readFile(codePath, 'utf8');
}
