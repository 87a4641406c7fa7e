import { z } from 'zod';
import { secretNameSchema } from './secret-names.ts';
import { toolServersSchema } from './tool-server-settings.ts';

export const modelProviderNames = ['offline', 'openai-compatible', 'openai', 'anthropic'] as const;
export type ModelProviderName = (typeof modelProviderNames)[number];

/** The agent's sandbox policy. */
export const agentSandboxSettingsSchema = z
  .object({
    /** Commands get a network of the sandbox's own that reaches public addresses only (off by default: only its own loopback). Set by the operator. */
    network: z.boolean().optional(),
    /** run_command waits for an approval by an owner or admin (default true); false turns the gate off. Set by the operator. */
    run_command_approval: z.boolean().optional(),
  })
  .strict();

/**
 * Per-agent model settings, stored on the agent and overriding the service's
 * environment defaults field by field. Secrets are never stored here: an agent
 * names the org secret that holds its provider key (`api_key: {"secret": NAME}`), or
 * the operator names the worker's environment variable that does (`api_key_env`).
 */
export const agentModelSettingsSchema = z
  .object({
    /** What the agent is for, in a sentence or two: its tool description at /mcp (docs/mcp.md). */
    description: z.string().min(1).max(2000).optional(),
    provider: z.enum(modelProviderNames).optional(),
    /** The provider's model name. The offline model has one variant: "instant" answers without pacing (tests, benchmarks). */
    model: z.string().min(1).optional(),
    base_url: z.string().url().optional(),
    api_key_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    /** The provider key from one of the org's secrets, opened by the worker at call time; wins over `api_key_env`. */
    api_key: z
      .strictObject({ secret: secretNameSchema })
      .optional()
      .describe(
        'The provider key from the org\'s secret NAME ({"secret": "NAME"}), read by the worker at call time; wins over api_key_env',
      ),
    system_prompt: z.string().max(20_000).optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_output_tokens: z.number().int().positive().max(200_000).optional(),
    /** Tools the agent may call; all catalog tools when left out. */
    tools: z.array(z.string().min(1)).optional(),
    /** Model steps per run before the agent must answer; default 10. */
    max_steps: z.number().int().min(1).max(100).optional(),
    /** Tool calls that wait for a human approval before they run (`<server>__*` names every tool of a tool server). */
    approval_required_tools: z.array(z.string().min(1)).optional(),
    /** Tools of the sensitive class (in addition to those the catalog marks): only owners and admins may approve them; `<server>__*` as above. */
    sensitive_tools: z.array(z.string().min(1)).optional(),
    /** Deep-mode plans wait for approval before execution. */
    require_plan_approval: z.boolean().optional(),
    /** Callers may send `system` and `developer` messages in run requests (refused with 400 otherwise). */
    allow_instruction_messages: z.boolean().optional(),
    sandbox: agentSandboxSettingsSchema.optional(),
    /** MCP servers whose tools the agent may call, offered to the model as `<server>__<tool>` (docs/tools.md). */
    tool_servers: toolServersSchema
      .optional()
      .describe('MCP servers whose tools the agent may call, offered to the model as <server>__<tool> (docs/tools.md)'),
  })
  .strict();

export type AgentModelSettings = z.infer<typeof agentModelSettingsSchema>;
export type AgentSandboxSettings = z.infer<typeof agentSandboxSettingsSchema>;
