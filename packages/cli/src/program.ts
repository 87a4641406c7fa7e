/** The `agent-run` command tree: global configuration options and every command. */
import { Command } from 'commander';
import { addApprovalCommands } from './commands/approvals.ts';
import { addControlCommands } from './commands/control.ts';
import { addLoginCommand } from './commands/login.ts';
import { addMemoryCommands } from './commands/memories.ts';
import { addRunCommands } from './commands/run.ts';
import { addRunListCommand } from './commands/runs.ts';
import { addTaskCommands } from './commands/tasks.ts';
import { exitCodeHelp } from './exit-codes.ts';
import { version } from './version.ts';

const configHelp = `Configuration (flags > environment > config file):
  --url / AGENT_RUN_URL / "url"              the service's base url, e.g. http://127.0.0.1:8000
  --api-key / AGENT_RUN_API_KEY / "api_key"  an API key (exchanged for a short-lived token)
  --agent / AGENT_RUN_AGENT / "agent"        the agent to use (X-Agent-Id)
  --auth-url / AGENT_RUN_AUTH_URL / "auth_url"  the authentication API, if not at --url
  The config file is written by \`agent-run login\` (mode 0600) at $XDG_CONFIG_HOME/agent-run/config.json
  or ~/.config/agent-run/config.json; --config PATH or AGENT_RUN_CONFIG points elsewhere.
  NO_COLOR turns colors off; colors and the spinner are shown only when stderr is a terminal.`;

/** A fresh program; `main` parses argv with it. */
export function buildProgram(): Command {
  const program = new Command('agent-run')
    .description('Run agents of the Agent Run Service from a terminal or a script')
    .version(version)
    .option('--url <url>', 'service base url')
    .option('--api-key <key>', 'API key')
    .option('--agent <id>', 'agent id')
    .option('--auth-url <url>', 'authentication API base url (default: --url)')
    .option('--config <path>', 'config file path')
    .exitOverride()
    .showHelpAfterError('(run agent-run --help for the commands, configuration and exit codes)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', `\n${configHelp}\n\n${exitCodeHelp}`);
  addLoginCommand(program);
  addRunCommands(program);
  addTaskCommands(program);
  addRunListCommand(program);
  addApprovalCommands(program);
  addControlCommands(program);
  addMemoryCommands(program);
  return program;
}
