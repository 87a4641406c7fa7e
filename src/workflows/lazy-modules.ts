/* eslint-disable @typescript-eslint/no-require-imports -- on-demand module loads in the workflow bundle; see below */
import type * as AnswerSchemas from '../shared/answer-schemas.ts';
import type * as Tools from '../shared/tools/index.ts';
import type * as HumanTools from '../shared/tools/human.ts';
import type * as SandboxTools from '../shared/tools/sandbox.ts';

/**
 * Modules that build zod schemas when they load, loaded only when a run needs them. The worker
 * evaluates the workflow bundle's modules afresh for every workflow (reuseV8Context shares only
 * the SDK's own), and building zod and our schemas cost about half of the worker's CPU per fast
 * run, which needs none of them. webpack turns each `require` into a load of the bundled module
 * on first call, synchronously, so replays run exactly as before. Workflow code only: this runs
 * inside the bundle, never under Node's ESM loader. The paths have no extension, so webpack finds the
 * .ts sources (tests, npm start) and the compiled .js (npm run build) alike.
 */
export const tools = (): typeof Tools => require('../shared/tools/index');
export const humanTools = (): typeof HumanTools => require('../shared/tools/human');
export const sandboxTools = (): typeof SandboxTools => require('../shared/tools/sandbox');
export const answerSchemas = (): typeof AnswerSchemas => require('../shared/answer-schemas');
