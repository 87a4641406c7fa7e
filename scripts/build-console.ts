/** `npm run build` step: builds the web console into dist/console (src/infra/console-build.ts). */
import { buildConsole } from '../src/infra/console-build.ts';

await buildConsole();
