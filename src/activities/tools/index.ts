import { artifactToolImplementations } from './artifact-tools.ts';
import { memoryToolImplementations } from './memory-tools.ts';
import { sandboxToolImplementations } from './sandbox-tools.ts';
import type { ToolImplementation } from './types.ts';

/** The implementation of every `activity` tool of the catalog, by name. */
export const toolImplementations: ReadonlyMap<string, ToolImplementation> = new Map(
  [...memoryToolImplementations, ...artifactToolImplementations, ...sandboxToolImplementations].map((tool) => [
    tool.name,
    tool,
  ]),
);
