import type { ToolDefinition } from './definition.ts';
import { artifactTools } from './artifacts.ts';
import { humanTools } from './human.ts';
import { memoryTools } from './memory.ts';
import { sandboxTools } from './sandbox.ts';

/** Every tool an agent can be given. Agents enable a subset in their settings (`tools`). */
export const toolCatalog: ReadonlyMap<string, ToolDefinition> = new Map(
  [...humanTools, ...memoryTools, ...artifactTools, ...sandboxTools].map((tool) => [tool.name, tool as ToolDefinition]),
);

export type { ToolDefinition, ToolKind } from './definition.ts';
