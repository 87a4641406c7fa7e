import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { FloorSample } from './floor/measure.ts';
import type { RunTiming } from './run-latency.ts';
import { median } from './stats.ts';

const Event = proto.temporal.api.enums.v1.EventType;

/** Where one run's time went, from its client's clock and its workflow history's event times (ms). */
export interface Legs {
  'client → workflow started': number;
  '1st workflow task: waiting for the worker': number;
  '1st workflow task: worker': number;
  'activity: waiting for the worker': number;
  'activity: started → completed': number;
  '2nd workflow task: waiting for the worker': number;
  '2nd workflow task → workflow completed': number;
  /** Floor: its result reaching the client. Ours: RUN_FINISHED reaching the client, which it can before the workflow completes. */
  'workflow completed → client': number;
}

/**
 * The median of each leg over the sequential runs, for the floor and for ours, as one line each:
 * the bench's explanation of the whole-run ratio. Ours stores RUN_FINISHED inside the 2nd workflow
 * task (the terminal write), so its last leg can be negative.
 */
export async function medianLegs(
  client: Client,
  floor: FloorSample[],
  ours: RunTiming[],
): Promise<{ floor: string; ours: string }> {
  const floorLegs = await runLegs(
    client,
    floor.map((s) => ({ workflowId: s.workflowId, startedAt: s.startedAt, doneAt: s.startedAt + s.result })),
  );
  const oursLegs = await runLegs(
    client,
    ours.map((t) => ({ workflowId: t.runId, startedAt: t.startedAt, doneAt: t.startedAt + t.runFinished })),
  );
  return { floor: describeLegs(floorLegs), ours: describeLegs(oursLegs) };
}

/** A run the client timed: its workflow, when the client started it and when it saw its end (epoch ms). */
export interface ClientTimedRun {
  workflowId: string;
  startedAt: number;
  doneAt: number;
}

/** Each run's legs, from its workflow history. */
export function runLegs(client: Client, runs: ClientTimedRun[]): Promise<Legs[]> {
  return Promise.all(runs.map((r) => legsOf(client, r.workflowId, r.startedAt, r.doneAt)));
}

async function legsOf(client: Client, workflowId: string, startedAt: number, clientDoneAt: number): Promise<Legs> {
  const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
  const at = (type: number, nth = 0): number => {
    const event = (events ?? []).filter((e) => e.eventType === type)[nth];
    if (!event?.eventTime) throw new Error(`workflow ${workflowId} has no event ${Event[type]} #${nth + 1}`);
    return Number(event.eventTime.seconds) * 1000 + Math.round((event.eventTime.nanos ?? 0) / 1e6);
  };
  const wft = (nth: number) => ({
    scheduled: at(Event.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, nth),
    started: at(Event.EVENT_TYPE_WORKFLOW_TASK_STARTED, nth),
    completed: at(Event.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, nth),
  });
  const [first, second] = [wft(0), wft(1)];
  const completed = at(Event.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  return {
    'client → workflow started': at(Event.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) - startedAt,
    '1st workflow task: waiting for the worker': first.started - first.scheduled,
    '1st workflow task: worker': first.completed - first.started,
    'activity: waiting for the worker':
      at(Event.EVENT_TYPE_ACTIVITY_TASK_STARTED) - at(Event.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
    'activity: started → completed':
      at(Event.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) - at(Event.EVENT_TYPE_ACTIVITY_TASK_STARTED),
    '2nd workflow task: waiting for the worker': second.started - second.scheduled,
    '2nd workflow task → workflow completed': completed - second.started,
    'workflow completed → client': clientDoneAt - completed,
  };
}

/** "leg ms; …", each leg's median over the runs, or another statistic of them. */
export function describeLegs(runs: Legs[], stat: (samples: number[]) => number = median): string {
  const names = Object.keys(runs[0] ?? {}) as (keyof Legs)[];
  return names.map((name) => `${name} ${stat(runs.map((r) => r[name])).toFixed(0)}`).join('; ');
}
