/** Stable `RUN_ERROR` codes (no zod here: workflows import this). */
export const runErrorCodes = {
  execution: 'EXECUTION_ERROR',
  model: 'MODEL_ERROR',
  modelConfig: 'MODEL_CONFIG_ERROR',
  tool: 'TOOL_ERROR',
  cancelled: 'CANCELLED',
  internal: 'INTERNAL_ERROR',
} as const;
