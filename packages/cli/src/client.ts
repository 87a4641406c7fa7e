/** The SDK client a command talks through, made from the resolved settings. */
import { AgentRunClient } from '@agent-run/client';
import type { Settings } from './config.ts';
import { CliError, ExitCode } from './exit-codes.ts';
import { version } from './version.ts';

/** A client for `settings`; a usage error when the url or the key is missing. */
export function makeClient(settings: Settings): AgentRunClient {
  if (!settings.url)
    throw new CliError('no service url: pass --url, set AGENT_RUN_URL, or run `agent-run login`', ExitCode.usage);
  if (!settings.apiKey)
    throw new CliError('no API key: pass --api-key, set AGENT_RUN_API_KEY, or run `agent-run login`', ExitCode.usage);
  return new AgentRunClient({
    baseUrl: settings.url,
    apiKey: settings.apiKey,
    authUrl: settings.authUrl,
    agentId: settings.agent,
    userAgent: `agent-run-cli/${version}`,
    clientName: 'cli',
  });
}
