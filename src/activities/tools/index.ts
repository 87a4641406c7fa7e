import type { ToolImplementation } from './types.ts';

/** The implementation of every `activity` tool of the catalog, by name. */
export const toolImplementations: ReadonlyMap<string, ToolImplementation> = new Map(
  ([] as ToolImplementation[]).map((tool) => [tool.name, tool]),
);
