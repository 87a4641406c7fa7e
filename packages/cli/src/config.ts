/**
 * Where the CLI's url, API key and default agent come from: flags, then the environment
 * (AGENT_RUN_URL, AGENT_RUN_API_KEY, AGENT_RUN_AGENT), then the config file `agent-run login`
 * writes (mode 0600) at $XDG_CONFIG_HOME/agent-run/config.json or ~/.config/agent-run/config.json,
 * or at --config / AGENT_RUN_CONFIG.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, ExitCode } from './exit-codes.ts';

/** What the config file holds. */
export interface ConfigFile {
  url?: string;
  api_key?: string;
  agent?: string;
  auth_url?: string;
}

/** The global flags that take part in configuration. */
export interface ConfigFlags {
  url?: string;
  apiKey?: string;
  agent?: string;
  authUrl?: string;
  config?: string;
}

/** The settings a command runs with; any may be missing until a command needs it. */
export interface Settings {
  url?: string;
  apiKey?: string;
  agent?: string;
  authUrl?: string;
  configPath: string;
}

type Env = Record<string, string | undefined>;

/** The config file's path: --config, AGENT_RUN_CONFIG, then the XDG location. */
export function configPath(flags: ConfigFlags, env: Env = process.env): string {
  if (flags.config) return flags.config;
  if (env.AGENT_RUN_CONFIG) return env.AGENT_RUN_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'agent-run', 'config.json');
}

/** Reads the config file; a missing file is an empty config, a malformed one an error. */
export async function readConfigFile(path: string): Promise<ConfigFile> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as ConfigFile;
  } catch (err) {
    throw new CliError(`config file ${path} is not valid JSON: ${(err as Error).message}`, ExitCode.usage);
  }
}

/**
 * Writes the config file with mode 0600 (its directory 0700), replacing it atomically, so the
 * key is never readable by others, not even for a moment.
 */
export async function writeConfigFile(path: string, config: ConfigFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** Flags over environment over file. */
export async function resolveSettings(flags: ConfigFlags, env: Env = process.env): Promise<Settings> {
  const path = configPath(flags, env);
  const file = await readConfigFile(path);
  return {
    url: flags.url ?? (env.AGENT_RUN_URL || undefined) ?? file.url,
    apiKey: flags.apiKey ?? (env.AGENT_RUN_API_KEY || undefined) ?? file.api_key,
    agent: flags.agent ?? (env.AGENT_RUN_AGENT || undefined) ?? file.agent,
    authUrl: flags.authUrl ?? (env.AGENT_RUN_AUTH_URL || undefined) ?? file.auth_url,
    configPath: path,
  };
}

/** The agent a command acts for, or a usage error naming the three ways to set it. */
export function requireAgent(settings: Settings): string {
  if (!settings.agent)
    throw new CliError('no agent: pass --agent ID, set AGENT_RUN_AGENT, or run `agent-run login`', ExitCode.usage);
  return settings.agent;
}
