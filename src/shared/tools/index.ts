import type { ToolDefinition } from './definition.ts';
import { humanTools } from './human.ts';

/** Every tool an agent can be given. Agents enable a subset in their settings (`tools`). */
export const toolCatalog: ReadonlyMap<string, ToolDefinition> = new Map(
  [...humanTools].map((tool) => [tool.name, tool as ToolDefinition]),
);

export type { ToolDefinition, ToolKind } from './definition.ts';
