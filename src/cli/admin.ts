/**
 * The admin console's commands (the process is src/main/admin.ts). Every command
 * prints a human-readable result, or its records as JSON with `--json`.
 */
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { Command, Option } from 'commander';
import type { Db } from '../db/client.ts';
import { createAgent, grantAccess, listAgents, revokeAccess } from '../admin/agents.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../admin/api-keys.ts';
import { applyFile, parseApplyFile } from '../admin/apply.ts';
import { AdminError } from '../admin/errors.ts';
import {
  agentTable,
  applySummary,
  grantTable,
  keyTable,
  orgTable,
  userTable,
  widgetKeyTable,
} from '../admin/format.ts';
import { createGrant, listGrants, revokeGrant } from '../admin/grants.ts';
import { addCredits, createOrg, listOrgs, parseCredits } from '../admin/orgs.ts';
import { createUser, listUsers, roles } from '../admin/users.ts';
import { createWidgetKey, listWidgetKeys, revokeWidgetKey } from '../admin/widget-keys.ts';
import { listSecrets, removeOrgSecret, setOrgSecret } from '../admin/org-secrets.ts';
import { createSecretBox } from '../auth/secret-box.ts';
import { loadConfig } from '../config.ts';

/** What a command prints: `data` with --json, `text` otherwise. */
interface Output {
  data: unknown;
  text: string;
}

type Handler = (db: () => Promise<Db>, opts: Record<string, unknown>, args: string[]) => Promise<Output>;

const program = new Command('admin')
  .description('Administer orgs, users, agents, API keys and approval grants of the Agent Run Service')
  .showHelpAfterError()
  .configureOutput({ outputError: (msg, write) => write(msg) });

const org = program.command('org').description('organizations');
leaf(org, 'create', 'create an org')
  .requiredOption('--name <name>', 'org name (unique)')
  .option('--credits <n>', 'initial credit balance', '0')
  .action(
    run(async (db, o) => {
      const created = await createOrg(await db(), { name: str(o.name), credits: parseCredits(str(o.credits)) });
      return { data: created, text: `created org ${created.id} "${created.name}" with ${created.credits} credits` };
    }),
  );
leaf(org, 'credits', "add credits to an org's balance (a top-up)")
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--add <n>', 'credits to add (a positive whole number)')
  .action(
    run(async (db, o) => {
      const org = await addCredits(await db(), str(o.org), parseCredits(str(o.add)));
      return { data: org, text: `org ${org.id} "${org.name}" now has ${org.credits} credits` };
    }),
  );
leaf(org, 'list', 'list orgs').action(
  run(async (db) => {
    const orgs = await listOrgs(await db());
    return { data: orgs, text: orgTable(orgs) };
  }),
);

const user = program.command('user').description('users of an org');
leaf(user, 'create', 'create a user')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--email <email>', 'email, unique within the org')
  .option('--name <name>', 'display name')
  .addOption(new Option('--role <role>', 'role').choices(roles).makeOptionMandatory())
  .action(
    run(async (db, o) => {
      const created = await createUser(await db(), {
        orgId: str(o.org),
        email: str(o.email),
        name: opt(o.name),
        role: str(o.role),
      });
      return {
        data: created,
        text: `created user ${created.id} ${created.email} (${created.role}) in org ${created.org_id}`,
      };
    }),
  );
leaf(user, 'list', "list an org's users")
  .requiredOption('--org <org_id>', 'org id')
  .action(
    run(async (db, o) => {
      const users = await listUsers(await db(), str(o.org));
      return { data: users, text: userTable(users) };
    }),
  );

const agent = program.command('agent').description('agents of an org, and who may use them');
leaf(agent, 'create', 'create an agent')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--name <name>', 'agent name, unique within the org')
  .option('--customer-facing', 'the agent talks to the org’s customers', false)
  .option('--settings <json>', 'model settings as JSON, e.g. {"provider":"openai","model":"gpt-4.1"}')
  .option('--access <user_ids>', 'comma-separated ids of users given access (owners and admins always have it)')
  .action(
    run(async (db, o) => {
      const created = await createAgent(await db(), {
        orgId: str(o.org),
        name: str(o.name),
        customerFacing: o.customerFacing === true,
        settings: o.settings === undefined ? {} : parseJson(str(o.settings), '--settings'),
        access: o.access === undefined ? [] : list(str(o.access)),
      });
      return { data: created, text: `created agent ${created.id} "${created.name}" in org ${created.org_id}` };
    }),
  );
leaf(agent, 'list', "list an org's agents")
  .requiredOption('--org <org_id>', 'org id')
  .action(
    run(async (db, o) => {
      const agents = await listAgents(await db(), str(o.org));
      return { data: agents, text: agentTable(agents) };
    }),
  );
leaf(agent, 'grant', 'give a user access to an agent')
  .requiredOption('--agent <agent_id>', 'agent id')
  .requiredOption('--user <user_id>', 'user id (of the agent’s org)')
  .action(
    run(async (db, o) => {
      const r = await grantAccess(await db(), str(o.agent), str(o.user));
      const data = { agent_id: str(o.agent), user_id: str(o.user), ...r };
      return { data, text: r.granted ? `granted ${data.user_id} access to ${data.agent_id}` : 'already had access' };
    }),
  );
leaf(agent, 'revoke', "remove a user's access to an agent")
  .requiredOption('--agent <agent_id>', 'agent id')
  .requiredOption('--user <user_id>', 'user id')
  .action(
    run(async (db, o) => {
      const r = await revokeAccess(await db(), str(o.agent), str(o.user));
      const data = { agent_id: str(o.agent), user_id: str(o.user), ...r };
      return {
        data,
        text: r.revoked ? `revoked ${data.user_id}'s access to ${data.agent_id}` : 'had no explicit access',
      };
    }),
  );

const key = program.command('key').description('API keys');
leaf(key, 'create', 'create an API key for a user; the key is printed once')
  .requiredOption('--user <user_id>', 'user id')
  .option('--name <name>', 'name, e.g. what the key is for')
  .action(
    run(async (db, o) => {
      const created = await createApiKey(await db(), { userId: str(o.user), name: opt(o.name) });
      const text = [
        `created key ${created.id} for user ${created.user_id}:`,
        created.key,
        'Store it now: it is not shown again.',
      ].join('\n');
      return { data: created, text };
    }),
  );
leaf(key, 'revoke', 'revoke an API key')
  .requiredOption('--key <key_id>', 'key id')
  .action(
    run(async (db, o) => {
      const r = await revokeApiKey(await db(), str(o.key));
      return { data: r, text: `${r.already_revoked ? 'already revoked' : 'revoked'} key ${r.id} at ${r.revoked_at}` };
    }),
  );
leaf(key, 'list', 'list API keys (never the keys themselves)')
  .option('--user <user_id>', 'keys of this user')
  .option('--org <org_id>', 'keys of this org')
  .action(
    run(async (db, o) => {
      if (o.user === undefined && o.org === undefined) throw new AdminError('give --user or --org');
      const keys = await listApiKeys(await db(), { userId: opt(o.user), orgId: opt(o.org) });
      return { data: keys, text: keyTable(keys) };
    }),
  );

const widgetKey = program
  .command('widget-key')
  .description('publishable keys of the embedded chat widget (docs/widget.md)');
leaf(widgetKey, 'create', 'create a widget key for a customer-facing agent; the key is printed once')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--agent <agent_id>', 'a customer-facing agent of the org')
  .requiredOption('--name <name>', 'name, e.g. the site it is for')
  .requiredOption(
    '--origins <origins>',
    'comma-separated browser origins allowed to use it, e.g. https://shop.example.com',
  )
  .action(
    run(async (db, o) => {
      const created = await createWidgetKey(await db(), {
        orgId: str(o.org),
        agentId: str(o.agent),
        name: str(o.name),
        origins: list(str(o.origins)),
      });
      return {
        data: created,
        text: [
          `created widget key ${created.id} for agent ${created.agent_id}:`,
          created.key,
          'It is publishable (it goes into your page) but is not shown again.',
        ].join('\n'),
      };
    }),
  );
leaf(widgetKey, 'ls', "list an org's widget keys (never the keys themselves)")
  .alias('list')
  .requiredOption('--org <org_id>', 'org id')
  .action(
    run(async (db, o) => {
      const keys = await listWidgetKeys(await db(), str(o.org));
      return { data: keys, text: widgetKeyTable(keys) };
    }),
  );
leaf(widgetKey, 'revoke', 'revoke a widget key: new sessions and visitor tokens of it are refused at once')
  .requiredOption('--key <key_id>', 'widget key id')
  .action(
    run(async (db, o) => {
      const r = await revokeWidgetKey(await db(), str(o.key));
      return {
        data: r,
        text: `${r.already_revoked ? 'already revoked' : 'revoked'} widget key ${r.id} at ${r.revoked_at}`,
      };
    }),
  );

const grant = program.command('grant').description('standing approval grants ("approve always") for agent tools');
leaf(grant, 'list', 'list approval grants (active ones unless --all)')
  .option('--org <org_id>', 'grants of this org')
  .option('--agent <agent_id>', 'grants of this agent')
  .option('--all', 'include revoked grants')
  .action(
    run(async (db, o) => {
      const grants = await listGrants(await db(), {
        orgId: opt(o.org),
        agentId: opt(o.agent),
        includeRevoked: o.all === true,
      });
      return { data: grants, text: grantTable(grants) };
    }),
  );
leaf(grant, 'create', 'pre-approve a tool for an agent, as "approve always" does')
  .requiredOption('--agent <agent_id>', 'agent id')
  .requiredOption(
    '--tool <tool>',
    'tool name from the catalog (e.g. run_command) or <server>__<tool> of a tool server of the agent',
  )
  .requiredOption(
    '--by <user_id>',
    'user recorded as granting it (of the agent’s org; owner or admin for sensitive tools)',
  )
  .action(
    run(async (db, o) => {
      const g = await createGrant(await db(), { agentId: str(o.agent), toolName: str(o.tool), grantedBy: str(o.by) });
      const text = g.already_granted
        ? `already granted: grant ${g.id} (by ${g.granted_by} at ${g.created_at})`
        : `created grant ${g.id}: ${g.tool_name} for agent ${g.agent_id} in org ${g.org_id}`;
      return { data: g, text };
    }),
  );
leaf(grant, 'revoke', 'revoke an approval grant; calls of the tool need approval again')
  .requiredOption('--grant <grant_id>', 'grant id')
  .action(
    run(async (db, o) => {
      const r = await revokeGrant(await db(), str(o.grant));
      return { data: r, text: `${r.already_revoked ? 'already revoked' : 'revoked'} grant ${r.id} at ${r.revoked_at}` };
    }),
  );

const secret = program
  .command('secret')
  .description("an org's secrets (Slack bot tokens, tool-server keys): set, listed by name, never shown");
leaf(secret, 'set', 'set a secret; the value is read from stdin (never from the command line, which others can see)')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--name <name>', 'secret name, e.g. SLACK_BOT_TOKEN')
  .action(
    run(async (db, o) => {
      const value = (await text(process.stdin)).replace(/\r?\n$/, '');
      const r = await setOrgSecret(
        await db(),
        createSecretBox(loadConfig().secrets.key),
        str(o.org),
        str(o.name),
        value,
      );
      return { data: r, text: `${r.created ? 'created' : 'replaced'} secret ${r.name} of org ${str(o.org)}` };
    }),
  );
leaf(secret, 'list', "list an org's secrets by name")
  .requiredOption('--org <org_id>', 'org id')
  .action(
    run(async (db, o) => {
      const secrets = await listSecrets(await db(), str(o.org));
      return {
        data: secrets,
        text: secrets.length ? secrets.map((s) => `${s.name}  (updated ${s.updated_at})`).join('\n') : 'no secrets',
      };
    }),
  );
leaf(secret, 'delete', 'delete a secret')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--name <name>', 'secret name')
  .action(
    run(async (db, o) => {
      await removeOrgSecret(await db(), str(o.org), str(o.name));
      return { data: { name: str(o.name), deleted: true }, text: `deleted secret ${str(o.name)}` };
    }),
  );

leaf(program, 'apply', 'create or update orgs, users, agents, keys and widget keys from a JSON file ("-" reads stdin)')
  .argument('<file>', 'the apply file')
  .option('--dry-run', 'show what would change, then roll back')
  .action(
    run(async (db, o, [file]) => {
      const spec = parseApplyFile(parseJson(await readInput(file ?? '-'), file ?? 'stdin'));
      const result = await applyFile(await db(), spec, { dryRun: o.dryRun === true });
      return { data: result, text: applySummary(result) };
    }),
  );

/** A runnable command; every one of them takes --json. */
function leaf(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description).option('--json', 'print machine-readable JSON');
}

/** Opens the database on a command's first use of it; set by the process before parsing. */
let openDatabase: () => Promise<Db> = () => Promise.reject(new Error('the admin console has no database'));

/** Runs the console on the process's arguments, with `open` giving the database to commands that need one. */
export async function runAdminConsole(open: () => Promise<Db>): Promise<void> {
  openDatabase = open;
  await program.parseAsync();
}

/** Wraps a handler: the database is opened only when asked; prints the output. */
function run(handler: Handler) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const opts = command.opts();
    const out = await handler(openDatabase, opts, command.args);
    process.stdout.write(`${opts.json ? JSON.stringify(out.data, null, 2) : out.text}\n`);
  };
}

function str(value: unknown): string {
  return String(value);
}

function opt(value: unknown): string | undefined {
  return value === undefined ? undefined : String(value);
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function parseJson(source: string, what: string): unknown {
  try {
    return JSON.parse(source);
  } catch (err) {
    throw new AdminError(`${what}: invalid JSON: ${(err as Error).message}`);
  }
}

async function readInput(file: string): Promise<string> {
  if (file === '-') return text(process.stdin);
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new AdminError(`cannot read ${file}: ${(err as Error).message}`);
  }
}
