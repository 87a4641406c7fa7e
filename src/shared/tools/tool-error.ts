/**
 * A refusal or failure the model should see and may recover from (bad path, file missing, timeout).
 * Thrown by tool implementations (src/activities/tools) and by the sandbox they call (src/sandbox).
 */
export class ToolError extends Error {
  override name = 'ToolError';
  constructor(
    message: string,
    readonly code = 'TOOL_ERROR',
  ) {
    super(message);
  }
}
