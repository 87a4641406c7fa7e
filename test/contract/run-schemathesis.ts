import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureSchemathesis } from './schemathesis.ts';
import type { ContractSeed } from './seed.ts';

export interface ContractRunOptions {
  apiUrl: string;
  seed: ContractSeed;
  /** Test cases per operation and phase. */
  maxExamples: number;
  /** Stop after this many seconds of fuzzing (schemathesis' --max-time). */
  maxSeconds?: number;
  seedValue?: number;
  /** Print schemathesis' output as it comes. */
  echo?: boolean;
  /**
   * Leave out the coverage phase of the run-starting operations (POST /api/run, /api/run/async,
   * /api/v1/widget/run, /api/ag-ui/run): once positive bodies are runnable each of their hundreds of
   * coverage cases starts a run (a streamed one: minutes in all); fuzzing and the stateful phase still send them.
   */
  skipRunCoverage?: boolean;
}

export interface ContractRunResult {
  exitCode: number;
  output: string;
}

/**
 * `st run <api>/openapi.json --checks all` as the seeded owner, acting through the seeded agent,
 * with the seeded ids as path and query parameters so operations reach past 404.
 */
export async function runSchemathesis(opts: ContractRunOptions): Promise<ContractRunResult> {
  const st = ensureSchemathesis();
  const dir = mkdtempSync(path.join(tmpdir(), 'ars-contract-'));
  const config = path.join(dir, 'schemathesis.toml');
  writeFileSync(config, toml(opts.seed, opts.skipRunCoverage ?? false));
  const args = [
    '--config-file',
    config,
    'run',
    `${opts.apiUrl}/openapi.json`,
    '--checks',
    'all',
    '--max-examples',
    String(opts.maxExamples),
    // One worker: with two, hypothesis' ast.parse runs in two threads at once and CPython 3.11 can fail
    // with "SystemError: AST constructor recursion depth mismatch" (a schemathesis runtime error, seen in CI).
    '--workers',
    '1',
    '--request-timeout',
    '10',
    '--no-color',
    '--output-truncate',
    'false',
    // Auth comes from the seeded headers; generated bearer tokens and session cookies would only test the fuzzer.
    '--generation-with-security-parameters',
    'false',
    '--generation-database',
    'none',
    '--suppress-health-check',
    'all',
    ...(opts.maxSeconds ? ['--max-time', String(opts.maxSeconds)] : []),
    ...(opts.seedValue !== undefined ? ['--seed', String(opts.seedValue)] : []),
  ];
  try {
    return await new Promise<ContractRunResult>((resolve, reject) => {
      const child = spawn(st, args, {
        cwd: dir,
        // contract_hooks.py makes positive run bodies follow the rules JSON Schema cannot state (see there).
        env: {
          ...process.env,
          NO_COLOR: '1',
          SCHEMATHESIS_HOOKS: 'contract_hooks',
          CONTRACT_HOOKS_SEED: JSON.stringify(hookSeed(opts.seed)),
          PYTHONDONTWRITEBYTECODE: '1',
          PYTHONPATH: import.meta.dirname,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const take = (chunk: Buffer) => {
        output += chunk.toString();
        if (opts.echo) process.stdout.write(chunk);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      child.on('error', reject);
      child.on('exit', (code) => resolve({ exitCode: code ?? 1, output }));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What contract_hooks.py puts into positive bodies: the tasks run starts continue, the requests answers answer. */
function hookSeed(seed: ContractSeed) {
  const request = (r: ContractSeed['textInput']) => ({ request_id: r.requestId, run_id: r.runId });
  return {
    run_tasks: {
      'POST /api/run': seed.runTaskId,
      'POST /api/run/async': seed.runTaskId,
      'POST /api/v1/widget/run': seed.widget.taskId,
    },
    answers: {
      'POST /api/tasks/{task_id}/input': request(seed.textInput),
      'POST /api/v1/widget/tasks/{task_id}/input': request(seed.widgetTextInput),
    },
  };
}

export function toml(seed: ContractSeed, skipRunCoverage = false): string {
  const str = (v: string) => JSON.stringify(v);
  const visitorHeaders = `headers = { Authorization = ${str(`Bearer ${seed.widget.visitorToken}`)}, Origin = ${str(seed.widget.origin)} }`;
  const noCoverage = ['[operations.phases.coverage]', 'enabled = false'];
  const operation = (operationId: string, lines: string[]) => [
    '[[operations]]',
    `include-operation-id = ${str(operationId)}`,
    ...lines,
    '',
  ];
  return [
    '[headers]',
    `Authorization = ${str(`Bearer ${seed.token}`)}`,
    `X-Agent-Id = ${str(seed.agentId)}`,
    '',
    '[parameters]',
    ...Object.entries(seed.ids).map(([name, value]) => `"path.${name}" = ${str(value)}`),
    `"query.run_id" = ${str(seed.ids.run_id)}`,
    `"path.delivery_id" = ${str(seed.deliveryId)}`,
    '',
    // The rate limiter counts every authenticated request before the agent check (src/api/route.ts): a
    // client over its budget gets the documented 429, whatever header it left out.
    '[checks.missing_required_header]',
    'expected-statuses = ["400", "401", "403", "406", "415", "422", "429"]',
    '',
    ...operation('streamTask', [`parameters = { "query.last_event_id" = ${str(seed.eventId)} }`]),
    // The widget gateway: a visitor token instead of the owner's, from the origin its key allows.
    ...operation('startWidgetSession', [visitorHeaders]),
    ...operation('widgetStreamTask', [
      visitorHeaders,
      `parameters = { "path.task_id" = ${str(seed.widget.taskId)}, "query.last_event_id" = ${str(seed.widget.eventId)} }`,
    ]),
    ...['widgetListTaskMessages', 'widgetGetPendingInput'].flatMap((operationId) =>
      operation(operationId, [visitorHeaders, `parameters = { "path.task_id" = ${str(seed.widget.taskId)} }`]),
    ),
    ...operation('deleteTask', [`parameters = { "path.task_id" = ${str(seed.deletableTaskId)} }`]),
    ...Object.entries(seed.cursors).flatMap(([operationId, cursor]) =>
      operation(operationId, [`parameters = { "query.cursor" = ${str(cursor)} }`]),
    ),
    // The run-control operations and the comment act on a run that waits on an approval.
    ...['pauseRun', 'resumeRun', 'cancelRun'].flatMap((operationId) =>
      operation(operationId, [`parameters = { "path.task_id" = ${str(seed.activeTask.taskId)} }`]),
    ),
    // The input answers go to runs that wait for text (contract_hooks.py fills a positive body in): the first one is
    // accepted, and every later answer to the same request is the documented 409.
    ...operation('answerInput', [
      `parameters = { "path.task_id" = ${str(seed.textInput.taskId)} }`,
      '[operations.checks.positive_data_acceptance]',
      'expected-statuses = ["2xx", "401", "403", "404", "409", "429"]',
    ]),
    ...operation('widgetAnswerInput', [
      visitorHeaders,
      `parameters = { "path.task_id" = ${str(seed.widgetTextInput.taskId)} }`,
      '[operations.checks.positive_data_acceptance]',
      'expected-statuses = ["2xx", "401", "403", "404", "409", "429"]',
    ]),
    ...operation('commentOnRun', [
      `parameters = { "path.task_id" = ${str(seed.activeTask.taskId)}, "path.run_id" = ${str(seed.activeTask.runId)} }`,
    ]),
    ...Object.entries(seed.flows).flatMap(([operationId, flowId]) =>
      operation(operationId, [`parameters = { "path.flow_id" = ${str(flowId)} }`]),
    ),
    // A tool server's rules the document does not state as patterns (its name, URL scheme, credentials
    // only from secrets, secrets the org has) are 400 (see docs/hardening-contract.md "Not done"); so is a
    // server Connect cannot reach or discover.
    ...['testToolServer', 'connectToolServer'].flatMap((operationId) =>
      operation(operationId, [
        '[operations.checks.positive_data_acceptance]',
        'expected-statuses = ["2xx", "400", "401", "403", "404", "429"]',
      ]),
    ),
    // Semantic 400s of valid parameters: a Connect callback's state that no Connect started (a page
    // saying so), and a usage window that runs backwards or spans more than 366 days.
    ...['toolServerOAuthCallback', 'getUsage'].flatMap((operationId) =>
      operation(operationId, [
        '[operations.checks.positive_data_acceptance]',
        'expected-statuses = ["2xx", "400", "401", "403", "404", "429"]',
      ]),
    ),
    ...operation('widgetStartRun', [visitorHeaders, ...(skipRunCoverage ? noCoverage : [])]),
    ...(skipRunCoverage ? ['startRun', 'startRunAsync', 'runAgUiAgent'] : []).flatMap((operationId) =>
      operation(operationId, noCoverage),
    ),
    // An apply document may name users, agents and secrets the org does not have: references JSON
    // Schema cannot check, a semantic 400. Its cross-field rules (a flow's settings by kind, a cron
    // flow without secret) and email checks are still 422 on schema-valid documents (docs/hardening-contract.md
    // "Not done"). Always a dry run, so fuzzed documents (cron flows, webhooks to random URLs) are
    // checked end to end but never kept.
    ...operation('applyOrgDocument', [
      'parameters = { "query.dry_run" = "true" }',
      '[operations.checks.positive_data_acceptance]',
      'expected-statuses = ["2xx", "400", "401", "403", "404", "409", "422", "429"]',
    ]),
  ].join('\n');
}
