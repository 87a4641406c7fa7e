/** `npm run build` step: builds the web console into dist/console (src/build/console.ts). */
import { buildConsole } from '../src/build/console.ts';

await buildConsole();
