import { z } from 'zod';
import { defineTool } from './definition.ts';

/**
 * The agent's persistent sandbox: one workspace per agent and organization,
 * shared by all its runs. Limits are the service's settings (SANDBOX_*); the
 * schemas only bound what a model may send.
 */
export const SANDBOX_COMMAND_MAX_TIMEOUT_SECONDS = 600;

const about =
  'The workspace is /workspace, a directory that persists across all runs of this agent (HOME is /workspace/.home, ' +
  'so dotfiles and user installs persist too). Paths are relative to /workspace (or absolute under it); nothing outside it can be read or written.';

const path = z.string().min(1).max(4096);

export const readFileTool = defineTool({
  name: 'read_file',
  readOnly: true,
  kind: 'activity',
  description:
    `Read a file of the sandbox workspace. ${about} Returns {path, content, encoding ("utf-8", or "base64" for binary), ` +
    'size_bytes, truncated} — large files are cut at the read limit (truncated: true; use run_command with head/tail/grep for parts).',
  input: z.object({ path: path.describe('File path, relative to /workspace') }),
});

export const writeFileTool = defineTool({
  name: 'write_file',
  kind: 'activity',
  description:
    `Create or overwrite a UTF-8 text file in the sandbox workspace; missing parent directories are created. ${about} ` +
    'Returns {path, size_bytes, created}.',
  input: z.object({
    path: path.describe('File path, relative to /workspace'),
    content: z.string().max(4_000_000).describe('The whole new content of the file'),
  }),
});

export const listFilesTool = defineTool({
  name: 'list_files',
  readOnly: true,
  kind: 'activity',
  description:
    `List a directory of the sandbox workspace (default: the workspace root). ${about} ` +
    'Returns {path, entries: [{path, type (file|directory|symlink|other), size_bytes?, target?}], truncated}.',
  input: z.object({
    path: path.optional().describe('Directory, relative to /workspace (default ".")'),
    recursive: z.boolean().optional().describe('List the whole tree below it (symlinked directories are not entered)'),
  }),
});

export const runCommandTool = defineTool({
  name: 'run_command',
  kind: 'activity',
  sensitive: true,
  description:
    `Run a shell command (bash -c) in the agent's sandbox, in /workspace. ${about} ` +
    'There is no network access unless the agent allows it. Each command is a fresh shell that reads no profile or rc file (~/.profile and ~/.bashrc are ignored): ' +
    'exactly the command given runs. Files persist, but processes and exported variables end with the command (set what a command needs in the command itself). CPU, memory, process count, file size and output are ' +
    'limited, and the workspace has a disk quota; a command still running at its timeout is killed. Returns {exit_code (null if killed), stdout, stderr, ' +
    'timed_out, truncated, duration_ms}.',
  input: z.object({
    command: z.string().min(1).max(100_000).describe('The bash command line'),
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(SANDBOX_COMMAND_MAX_TIMEOUT_SECONDS)
      .optional()
      .describe('Kill the command after this many seconds (default 60; the service may cap it lower)'),
  }),
});

export const sandboxTools = [readFileTool, writeFileTool, listFilesTool, runCommandTool];
