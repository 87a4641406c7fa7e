/* eslint-disable @typescript-eslint/no-require-imports -- on-demand module loads in the workflow bundle; see below */
import type * as AnswerSchemas from '../shared/answer-schemas.ts';
import type * as Tools from '../shared/tools/index.ts';
import type * as HumanTools from '../shared/tools/human.ts';
import type * as SandboxTools from '../shared/tools/sandbox.ts';
import * as zod from 'zod';

// zod's library is in the preloaded graph (this import): evaluated once and shared (frozen) by every
// workflow, not once in each. zod sets its defaults (English messages, its memoizer) into its config
// when the first schema is made: made here, so that happens before the SDK freezes the config.
zod.object({ text: zod.string() });

/**
 * Modules that build zod schemas when they load. They stay out of the preloaded module graph the
 * worker shares between workflows (src/worker/workflow-code.ts) and load on demand, once in each
 * workflow that needs them: a fast run needs none. webpack turns each `require` into a synchronous
 * load of the bundled module, so replays run exactly as the original run did. Workflow code only
 * (inside the bundle, never under Node's ESM loader); the paths have no extension, so webpack finds
 * the .ts sources (tests, npm start) and the compiled .js (npm run build) alike.
 */
export const tools = (): typeof Tools => require('../shared/tools/index');
export const humanTools = (): typeof HumanTools => require('../shared/tools/human');
export const sandboxTools = (): typeof SandboxTools => require('../shared/tools/sandbox');
export const answerSchemas = (): typeof AnswerSchemas => require('../shared/answer-schemas');
