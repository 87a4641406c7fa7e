import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { trace } from '@opentelemetry/api';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { tracingWorkerOptions } from '../src/worker/tracing-options.ts';
import { historiesDir, todaysWorkflowBundle } from './support/runs.ts';

const require = createRequire(import.meta.url);
/** Histories of runs from before LOCAL_BOOKKEEPING_PATCH, kept so those runs still continue after the deploy. */
const REGULAR_BOOKKEEPING = 'regular-bookkeeping';
/** Histories of runs whose end the workflow stored after their last model step (a local activity), from before that step stored it. */
const TERMINAL_WRITE = 'terminal-write';
const jsonIn = (dir: string) => readdirSync(path.join(historiesDir, dir)).filter((f) => f.endsWith('.json')).sort();
const files = [...jsonIn('.'), ...[REGULAR_BOOKKEEPING, TERMINAL_WRITE].flatMap((dir) => jsonIn(dir).map((f) => path.join(dir, f)))];
const paths = ['input-answered', 'input-dismissed', 'action-approved', 'action-rejected', 'grant-reused', 'plan-approved-modified', 'plan-rejected', 'cancelled-while-blocked', 'cancelled-mid-stream', 'paused-and-resumed', 'worker-crash-while-waiting', 'cancel-wins-over-finish', 'sandbox-routed', 'sandbox-host-died', 'sandbox-snapshot-before-waiting'];
/** The paths whose run ends with the agent's answer (in fast mode): its last model step now stores the run's end. */
const endedByTheirAnswer = ['input-answered', 'input-dismissed', 'action-approved', 'action-rejected', 'grant-reused', 'paused-and-resumed', 'worker-crash-while-waiting', 'sandbox-routed', 'sandbox-host-died', 'sandbox-snapshot-before-waiting'];
/** Paths that only exist since the last model step stores the run's end. */
const pathsOfTheStepEnd = ['cancel-refused-after-step-ended', 'comment-held-the-end', 'operator-cancel-after-step-ended'];
/** Histories of the other workflows: a webhook delivery retried until the receiver is back, a cron flow's tick, a Slack answer. */
const otherWorkflows = ['webhook-delivered-after-retries', 'flow-tick', 'flow-reply'];

/**
 * Saved histories of every human-in-the-loop path (made with SAVE_HISTORIES=1 by the e2e tests).
 * Replaying them against today's workflow code proves that runs started by an older worker
 * still continue correctly after a deploy.
 */
describe('replay of saved run histories', () => {
  const workflowsPath = require.resolve('../src/workflows/index.ts');
  beforeAll(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // another test file installed the runtime already
    }
  });

  it('has a history for every path, with local bookkeeping and from before it, and from before the last model step stored the end', () => {
    // Every path as today's code runs it, plus the plain fast run (its commands changed most).
    expect(jsonIn('.').map((f) => path.basename(f, '.json'))).toEqual([...paths, ...pathsOfTheStepEnd, 'fast-run-completed', ...otherWorkflows].sort());
    expect(jsonIn(REGULAR_BOOKKEEPING).map((f) => path.basename(f, '.json'))).toEqual([...paths].sort());
    expect(jsonIn(TERMINAL_WRITE).map((f) => path.basename(f, '.json'))).toEqual([...endedByTheirAnswer, 'fast-run-completed'].sort());
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: todaysWorkflowBundle() }, history, file);
  });

  it('every history replays the same with the tracing interceptors in the bundle (they make spans, never commands)', async () => {
    const spans = new InMemorySpanExporter();
    const traced = tracingWorkerOptions({ tracer: trace.getTracer('replay'), resource: new Resource({ 'service.name': 'replay' }), spanProcessor: new SimpleSpanProcessor(spans) });
    const histories = files.map((file) => ({
      workflowId: file,
      history: historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8'))),
    }));
    const results = [];
    // Sinks are skipped during replay; this one runs anyway, to show the interceptors were in the bundle.
    const exporter = (traced.sinks as unknown as { exporter: { export: { fn: (...args: unknown[]) => void } } }).exporter.export;
    const sinks = { exporter: { export: { fn: exporter.fn, callDuringReplay: true } } };
    const options = { workflowsPath, interceptors: { workflowModules: traced.workflowModules }, sinks };
    for await (const result of Worker.runReplayHistories(options, histories)) results.push(result);
    expect(results.map((r) => [r.workflowId, r.error ? String(r.error) : 'ok'])).toEqual(files.map((f) => [f, 'ok']));
    expect(spans.getFinishedSpans().some((s) => s.name === 'RunWorkflow:runWorkflow')).toBe(true); // the interceptors ran
  });
});
