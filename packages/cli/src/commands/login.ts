/**
 * `login`: asks for the service url, an API key and a default agent (or takes them from flags),
 * checks the key by exchanging it (and the agent by listing its tasks), then writes the config
 * file with mode 0600.
 */
import type { Command } from 'commander';
import { input, password } from '@inquirer/prompts';
import { makeClient } from '../client.ts';
import { readConfigFile, writeConfigFile, type ConfigFile } from '../config.ts';
import { action, optString, type Context } from '../context.ts';
import { CliError, ExitCode } from '../exit-codes.ts';

/** Adds login to `program`. */
export function addLoginCommand(program: Command): void {
  program
    .command('login')
    .description('save the service url, API key and default agent to the config file (mode 0600), after checking them')
    .option('--key <api_key>', 'the API key (else --api-key, AGENT_RUN_API_KEY, or a prompt)')
    .option('--no-verify', 'save without checking the key against the service')
    .action(action(login));
}

async function login(ctx: Context): Promise<void> {
  const path = ctx.settings.configPath;
  const current = await readConfigFile(path);
  const interactive = Boolean(process.stdin.isTTY);
  const url = await valueOf(optString(ctx.opts.url) ?? process.env.AGENT_RUN_URL, interactive, () =>
    input(
      { message: 'Service url', default: current.url, required: true, validate: isUrl },
      { output: process.stderr },
    ),
  );
  const apiKey = await valueOf(
    optString(ctx.opts.key) ?? optString(ctx.opts.apiKey) ?? process.env.AGENT_RUN_API_KEY,
    interactive,
    () =>
      password(
        { message: 'API key', mask: '*', validate: (v) => (v.trim() ? true : 'Enter the key') },
        { output: process.stderr },
      ),
  );
  const agent =
    optString(ctx.opts.agent) ??
    process.env.AGENT_RUN_AGENT ??
    (interactive
      ? (
          await input({ message: 'Default agent id (optional)', default: current.agent }, { output: process.stderr })
        ).trim() || undefined
      : current.agent);
  if (!isUrl(url)) throw new CliError(`not an http(s) url: ${url}`, ExitCode.usage);

  const config: ConfigFile = { ...current, url: url.replace(/\/+$/, ''), api_key: apiKey.trim(), agent };
  if (ctx.opts.verify !== false) await verify(ctx, config);
  await writeConfigFile(path, config);
  ctx.term.note(`saved ${path} (mode 0600)`);
}

/** A flag or environment value, else the prompt's answer; without a terminal a missing value is a usage error. */
async function valueOf(
  given: string | undefined,
  interactive: boolean,
  prompt: () => Promise<string>,
): Promise<string> {
  if (given) return given;
  if (!interactive)
    throw new CliError(
      'login needs --url and --key (or AGENT_RUN_URL and AGENT_RUN_API_KEY) when stdin is not a terminal',
      ExitCode.usage,
    );
  return prompt();
}

function isUrl(value: string): true | string {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? true : 'Use an http(s) url';
  } catch {
    return 'Enter a url, e.g. http://127.0.0.1:8000';
  }
}

/**
 * Exchanges the key (the SDK does it on its first call; it has no call of its own for that) and,
 * with an agent, lists one of its tasks.
 */
async function verify(ctx: Context, config: ConfigFile): Promise<void> {
  const settings = { ...ctx.settings, url: config.url, apiKey: config.api_key, agent: config.agent };
  const client = makeClient(settings);
  if (config.agent) await client.tasks.list({ limit: 1 });
  else
    await client.approvals.list({ status: 'pending' }).catch((err: unknown) => {
      // 403 (a guest may not read approvals) still means the key was exchanged; a bad key is 401.
      if ((err as { status?: number }).status !== 403) throw err;
    });
  ctx.term.note(`key accepted by ${config.url}${config.agent ? `; agent ${config.agent} is usable` : ''}`);
}
