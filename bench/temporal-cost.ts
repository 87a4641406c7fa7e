import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureTemporalBinary, fairnessFlags } from '../src/embedded/temporal-dev-server.ts';
import { runPriority } from '../src/shared/run-priority.ts';
import {
  AgentIdAttr,
  OrgIdAttr,
  RunModeAttr,
  RunStatusAttr,
  runSearchAttributes,
  TaskIdAttr,
} from '../src/shared/search-attributes.ts';
import { Floor, type FloorStartExtras } from './floor/measure.ts';
import { describeMachine } from './machine.ts';
import { perRun } from './proc.ts';
import { alternatingRounds, type FloorVariant } from './floor/rounds.ts';

/**
 * `npm run bench:temporal-cost`: what each thing our run asks of the Temporal server costs it,
 * added one at a time to the floor (a bare workflow running one activity) on one dev server set
 * up as ours is (fairness flags, our search attributes), in alternating closed-loop rounds.
 * Knobs: TEMPORAL_COST_CONCURRENCY (50), TEMPORAL_COST_ROUNDS (3), TEMPORAL_COST_RUNS (100 a round).
 * Prints numbers, asserts nothing.
 */
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CONCURRENCY = knob('TEMPORAL_COST_CONCURRENCY', 50);
const ROUNDS = knob('TEMPORAL_COST_ROUNDS', 3);
const RUNS = knob('TEMPORAL_COST_RUNS', 100);

const ids = {
  taskId: 'task_0123456789abcdef0123456789',
  agentId: 'agent_0123456789abcdef012345',
  orgId: 'org_0123456789abcdef0123456789',
};
/** Our run's start: five search attributes, the list's summary and the page's details, sized as ours. */
const attributes: FloorStartExtras = {
  typedSearchAttributes: [
    { key: TaskIdAttr, value: ids.taskId },
    { key: AgentIdAttr, value: ids.agentId },
    { key: OrgIdAttr, value: ids.orgId },
    { key: RunStatusAttr, value: 'executing' },
    { key: RunModeAttr, value: 'fast' },
  ],
  staticSummary: 'Assistant: Hi',
  staticDetails: [
    `**fast** run \`run_0123456789abcdef0123456789\` of agent **Assistant** (\`${ids.agentId}\`)`,
    `- org: \`${ids.orgId}\``,
    `- task: \`${ids.taskId}\``,
    `- started by: \`user_0123456789abcdef01234567\``,
    `- source: api`,
    `- routing: requested mode`,
  ].join('\n'),
};
/** Our run's workflow input, sized as a run's (ids, mode, routing, settings). */
const input = {
  args: [
    {
      runId: 'run_0123456789abcdef0123456789',
      ...ids,
      mode: 'fast',
      routingReason: 'requested mode',
      settings: { model: 'instant', temperature: 0.2, max_tokens: 1024, tools: ['web_search', 'save_memory'] },
      startRecorded: true,
    },
  ],
};

interface Variant extends FloorVariant {
  label: string;
  extras: FloorStartExtras;
}
const VARIANTS: Variant[] = [
  { label: 'the floor', type: 'floorWorkflow', extras: {} },
  {
    label: '+ priority and fairness key',
    type: 'floorWorkflow',
    extras: { priority: runPriority(ids.orgId, 'interactive') },
  },
  { label: '+ input payload', type: 'floorWorkflow', extras: input },
  {
    label: '+ search attributes',
    type: 'floorWorkflow',
    extras: { typedSearchAttributes: attributes.typedSearchAttributes },
  },
  {
    label: '+ summary and details',
    type: 'floorWorkflow',
    extras: { staticSummary: attributes.staticSummary, staticDetails: attributes.staticDetails },
  },
  { label: '+ search attributes, summary, details', type: 'floorWorkflow', extras: attributes },
  { label: '+ RunStatus change and details at the end', type: 'floorWithEndWorkflow', extras: attributes },
  {
    label: 'all of them (our run on the server)',
    type: 'floorWithEndWorkflow',
    extras: { ...attributes, ...input, priority: runPriority(ids.orgId, 'interactive') },
  },
];

/**
 * What one workflow of the variant left on the server (its history and visibility record), so the
 * figures are known to measure what their label says.
 */
async function whatTheServerHolds(floor: Floor, v: Variant): Promise<string> {
  const { workflowId } = await floor.once(v.type, v.extras);
  const handle = floor.temporal.workflow.getHandle(workflowId);
  const [description, history] = await Promise.all([handle.describe(), handle.fetchHistory()]);
  const details = await description.staticDetails();
  const attributes = description.typedSearchAttributes;
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const inputBytes = (started?.input?.payloads ?? []).reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
  return [
    `${history.events?.length ?? 0} events`,
    `${runSearchAttributes.filter((key) => attributes.get(key) !== undefined).length} search attributes`,
    `RunStatus ${attributes.get(RunStatusAttr) ?? '-'}`,
    `details ${details ? `${details.length} chars` : 'none'}`,
    `input ${inputBytes} B`,
    `priority ${description.priority?.priorityKey ?? 0}`,
  ].join(', ');
}

Runtime.install({ logger: new DefaultLogger('WARN') });
const env = await TestWorkflowEnvironment.createLocal({
  server: {
    executable: { type: 'existing-path', path: ensureTemporalBinary() },
    searchAttributes: runSearchAttributes,
    ip: '127.0.0.1',
    extraArgs: fairnessFlags(),
    log: { format: 'pretty', level: 'error' },
  },
});
const floor = await Floor.start(env.address);
try {
  const shape = { rounds: ROUNDS, runs: RUNS, concurrency: CONCURRENCY };
  const totals = await alternatingRounds(floor, env.address, VARIANTS, shape);
  const checks = await Promise.all(VARIANTS.map((v) => whatTheServerHolds(floor, v)));
  console.log(`${describeMachine()}; ${ROUNDS} rounds of ${RUNS} runs each, ${CONCURRENCY} in flight`);
  for (const [i, { runsPerSecond, cpu, runs }] of totals.entries()) {
    console.log(
      `${VARIANTS[i]!.label.padEnd(42)} ${runsPerSecond.toFixed(1).padStart(6)} runs/s; CPU ms per run: ${perRun(cpu, runs)}; server holds: ${checks[i]}`,
    );
  }
} finally {
  await floor.stop();
  await env.teardown();
}
