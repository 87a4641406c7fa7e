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
  writeFileSync(config, toml(opts.seed));
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
        env: { ...process.env, NO_COLOR: '1' },
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

function toml(seed: ContractSeed): string {
  const str = (v: string) => JSON.stringify(v);
  const visitorHeaders = `headers = { Authorization = ${str(`Bearer ${seed.widget.visitorToken}`)}, Origin = ${str(seed.widget.origin)} }`;
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
    '',
    ...operation('streamTask', [`parameters = { "query.last_event_id" = ${str(seed.eventId)} }`]),
    // The widget gateway: a visitor token instead of the owner's, from the origin its key allows.
    ...operation('startWidgetSession', [visitorHeaders]),
    ...['widgetStreamTask', 'widgetListTaskMessages', 'widgetAnswerInput', 'widgetGetPendingInput'].flatMap(
      (operationId) =>
        operation(operationId, [visitorHeaders, `parameters = { "path.task_id" = ${str(seed.widget.taskId)} }`]),
    ),
    ...operation('deleteTask', [`parameters = { "path.task_id" = ${str(seed.deletableTaskId)} }`]),
    ...Object.entries(seed.cursors).flatMap(([operationId, cursor]) =>
      operation(operationId, [`parameters = { "query.cursor" = ${str(cursor)} }`]),
    ),
    // The spec answers 400 when the last message is not from the user or has no text: a rule
    // JSON Schema cannot state about an array's last item, so these may answer 400 to valid data.
    ...['startRun', 'startRunAsync', 'widgetStartRun', 'runAgUiAgent'].flatMap((operationId) =>
      operation(operationId, [
        ...(operationId === 'widgetStartRun' ? [visitorHeaders] : []),
        '[operations.checks.positive_data_acceptance]',
        'expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]',
      ]),
    ),
    // An apply document may name users and agents the org does not have (400): references JSON
    // Schema cannot check; and a widget key's origin must be exactly what a browser sends (no
    // default port, lowercase host, no IPv4 shorthand), which the schema states only in words
    // (422). Always a dry run, so fuzzed documents (cron flows, webhooks to random URLs) are
    // checked end to end but never kept.
    // A tool server's rules JSON Schema cannot state (its name, URL scheme, credentials only from
    // secrets, secrets the org has) are 400.
    ...operation('testToolServer', [
      '[operations.checks.positive_data_acceptance]',
      'expected-statuses = ["2xx", "400", "401", "403", "404", "429"]',
    ]),
    ...operation('applyOrgDocument', [
      'parameters = { "query.dry_run" = "true" }',
      '[operations.checks.positive_data_acceptance]',
      'expected-statuses = ["2xx", "400", "401", "403", "404", "409", "422", "429"]',
    ]),
  ].join('\n');
}
