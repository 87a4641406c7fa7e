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
/** Histories of this release's runs. A later release that changes workflow code keeps this release's in a folder of its own. */
const files = readdirSync(historiesDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const workflowTypeOf = (file: string): string =>
  JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')).events[0].workflowExecutionStartedEventAttributes
    .workflowType.name;
const paths = [
  'input-answered',
  'input-dismissed',
  'action-approved',
  'action-rejected',
  'grant-reused',
  'plan-approved-modified',
  'plan-rejected',
  'cancelled-while-blocked',
  'cancelled-mid-stream',
  'paused-and-resumed',
  'worker-crash-while-waiting',
  'cancel-wins-over-finish',
  'sandbox-routed',
  'sandbox-host-died',
  'sandbox-snapshot-before-waiting',
  'mcp-tools-listed-and-called',
  'mcp-tool-approved',
  'client-tool-called',
  'queued-then-admitted',
  'cancelled-while-queued',
];
/** Paths where the last model step stored the run's end and a cancel or comment raced it. */
const pathsOfTheStepEnd = [
  'cancel-refused-after-step-ended',
  'comment-held-the-end',
  'operator-cancel-after-step-ended',
];
/** Histories of the other workflows: a webhook delivery retried until the receiver is back, a cron flow's tick, a Slack answer, a tool server's connection test. */
const otherWorkflows = ['webhook-delivered-after-retries', 'flow-tick', 'flow-reply', 'tool-server-checked'];

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

  it('has a history of this release for every path', () => {
    expect(files.map((f) => path.basename(f, '.json'))).toEqual(
      [...paths, ...pathsOfTheStepEnd, 'fast-run-completed', ...otherWorkflows].sort(),
    );
    expect(files.filter((f) => !otherWorkflows.includes(path.basename(f, '.json'))).map(workflowTypeOf)).toEqual(
      Array(paths.length + pathsOfTheStepEnd.length + 1).fill('agentRun'),
    );
  });

  it("a fast agentRun's history is the floor's (a bare 1-activity workflow) plus the one RunStatus change: no patch marker, no TemporalChangeVersion", () => {
    const history = JSON.parse(readFileSync(path.join(historiesDir, 'fast-run-completed.json'), 'utf8')) as {
      events: Record<string, unknown>[];
    };
    const shape = history.events.map((e) => {
      const type = String(e.eventType).replace(/^EVENT_TYPE_/, '');
      const upsert = e.upsertWorkflowSearchAttributesEventAttributes as
        { searchAttributes: { indexedFields: Record<string, unknown> } } | undefined;
      return upsert ? `${type} ${Object.keys(upsert.searchAttributes.indexedFields).join(',')}` : type;
    });
    const workflowTask = ['WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED'];
    expect(shape).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      ...workflowTask,
      'ACTIVITY_TASK_SCHEDULED',
      'ACTIVITY_TASK_STARTED',
      'ACTIVITY_TASK_COMPLETED',
      ...workflowTask,
      'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES RunStatus',
      'WORKFLOW_EXECUTION_COMPLETED',
    ]);
  });

  it.each(files)('%s replays deterministically', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: todaysWorkflowBundle() }, history, file);
  });

  it('every history replays the same with the tracing interceptors in the bundle (they make spans, never commands)', async () => {
    const spans = new InMemorySpanExporter();
    const traced = tracingWorkerOptions({
      tracer: trace.getTracer('replay'),
      resource: new Resource({ 'service.name': 'replay' }),
      spanProcessor: new SimpleSpanProcessor(spans),
    });
    const histories = files.map((file) => ({
      workflowId: file,
      history: historyFromJSON(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8'))),
    }));
    const results = [];
    // Sinks are skipped during replay; this one runs anyway, to show the interceptors were in the bundle.
    const exporter = (traced.sinks as unknown as { exporter: { export: { fn: (...args: unknown[]) => void } } })
      .exporter.export;
    const sinks = { exporter: { export: { fn: exporter.fn, callDuringReplay: true } } };
    const options = { workflowsPath, interceptors: { workflowModules: traced.workflowModules }, sinks };
    for await (const result of Worker.runReplayHistories(options, histories)) results.push(result);
    expect(results.map((r) => [r.workflowId, r.error ? String(r.error) : 'ok'])).toEqual(files.map((f) => [f, 'ok']));
    // the interceptors ran
    expect(spans.getFinishedSpans().some((s) => s.name === 'RunWorkflow:agentRun')).toBe(true);
  });
});
