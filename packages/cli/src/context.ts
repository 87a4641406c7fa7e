/**
 * What every command's handler gets (settings, terminal, a lazily made client), and the wrapper
 * that turns a handler into a commander action recording the exit code.
 */
import type { AgentRunClient } from '@agent-run/client';
import type { Command } from 'commander';
import { makeClient } from './client.ts';
import { resolveSettings, type Settings } from './config.ts';
import { Terminal } from './terminal.ts';

export interface Context {
  settings: Settings;
  term: Terminal;
  /** The SDK client (a usage error if the url or key is missing). */
  client(): AgentRunClient;
  /** The command's own and global options. */
  opts: Record<string, unknown>;
}

/** A handler returns its exit code (0 when it returns nothing). */
export type Handler = (ctx: Context, args: string[]) => Promise<number | void>;

/** The exit code of the last action; read by main. */
export const outcome = { exitCode: 0 };

/** Wraps `handler` as a commander action. */
export function action(handler: Handler): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const opts = command.optsWithGlobals();
    const settings = await resolveSettings({
      url: opts.url as string | undefined,
      apiKey: opts.apiKey as string | undefined,
      agent: opts.agent as string | undefined,
      authUrl: opts.authUrl as string | undefined,
      config: opts.config as string | undefined,
    });
    let client: AgentRunClient | undefined;
    const ctx: Context = { settings, term: new Terminal(), client: () => (client ??= makeClient(settings)), opts };
    outcome.exitCode = (await handler(ctx, command.processedArgs as string[])) ?? 0;
  };
}

/** A string option, or undefined. */
export const optString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
