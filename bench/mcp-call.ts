import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { BenchCaller } from './client.ts';
import { timedRun } from './run-latency.ts';

const Event = proto.temporal.api.enums.v1.EventType;

/** The tool every measured call makes: the everything server's echo, with the same argument. */
export const MCP_TOOL = { server: 'everything', tool: 'echo', args: { message: 'hi' } };
const SEQUENTIAL_PAUSE_MS = 150;

export interface McpCallSamples {
  /** The run's call activity (callServerTool): scheduled → completed, what the run waits for the call. */
  inRun: number[];
  /** … of which Temporal handing the activity task to the worker (scheduled → started). */
  dispatch: number[];
  /** … of which the activity itself on the worker (started → completed). */
  activity: number[];
  /** The whole run (POST /api/run → RUN_FINISHED) with the call, and the same run's listing activity. */
  run: number[];
  listing: number[];
  /** The same call with the MCP SDK's client on a session already open (connected once, before). */
  sdkWarm: number[];
  /** The same call with a new SDK session each time: connect (initialize), call, end the session. */
  sdkFresh: number[];
}

/**
 * `runs` runs of an agent with one tool server (the everything server on loopback) whose message
 * makes the offline model call its echo once, each followed by the same call made directly with
 * the SDK's client, warm and on a new session, taking turns with a pause before each run.
 */
export async function benchMcpCall(
  who: BenchCaller,
  temporal: Client,
  serverUrl: string,
  warmUp: number,
  runs: number,
): Promise<McpCallSamples> {
  const samples: McpCallSamples = {
    inRun: [],
    dispatch: [],
    activity: [],
    run: [],
    listing: [],
    sdkWarm: [],
    sdkFresh: [],
  };
  const message = `/tool ${MCP_TOOL.server}__${MCP_TOOL.tool} ${JSON.stringify(MCP_TOOL.args)}`;
  const call = (client: McpClient) => client.callTool({ name: MCP_TOOL.tool, arguments: MCP_TOOL.args });
  const warm = await connect(serverUrl);
  try {
    for (let i = 0; i < warmUp + runs; i++) {
      await new Promise((r) => setTimeout(r, SEQUENTIAL_PAUSE_MS));
      const run = await timedRun(who, message);
      if (!run.frames.some((f) => f.type === 'TOOL_CALL_RESULT')) throw new Error(`run ${run.runId} made no tool call`);
      let t0 = performance.now();
      await call(warm.client);
      const sdkWarm = performance.now() - t0;
      t0 = performance.now();
      const fresh = await connect(serverUrl);
      await call(fresh.client);
      await fresh.close();
      const sdkFresh = performance.now() - t0;
      if (i < warmUp) continue;
      const legs = await activityLegs(temporal, run.runId);
      samples.inRun.push(legs.callServerTool.completed - legs.callServerTool.scheduled);
      samples.dispatch.push(legs.callServerTool.started - legs.callServerTool.scheduled);
      samples.activity.push(legs.callServerTool.completed - legs.callServerTool.started);
      samples.listing.push(legs.listToolServerTools.completed - legs.listToolServerTools.scheduled);
      samples.run.push(run.runFinished);
      samples.sdkWarm.push(sdkWarm);
      samples.sdkFresh.push(sdkFresh);
    }
  } finally {
    await warm.close();
  }
  return samples;
}

async function connect(url: string): Promise<{ client: McpClient; close: () => Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new McpClient({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

type Times = { scheduled: number; started: number; completed: number };

/** The event times of the run's MCP activities, from its workflow history. */
async function activityLegs(
  temporal: Client,
  runId: string,
): Promise<{ callServerTool: Times; listToolServerTools: Times }> {
  const events = (await temporal.workflow.getHandle(runId).fetchHistory()).events ?? [];
  const ms = (e: (typeof events)[number]) =>
    Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6);
  const times = (type: string): Times => {
    const scheduled = events.find(
      (e) =>
        e.eventType === Event.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        e.activityTaskScheduledEventAttributes?.activityType?.name === type,
    );
    if (!scheduled) throw new Error(`run ${runId} scheduled no ${type}`);
    const of = (e: (typeof events)[number]) =>
      String(
        e.activityTaskStartedEventAttributes?.scheduledEventId ??
          e.activityTaskCompletedEventAttributes?.scheduledEventId,
      ) === String(scheduled.eventId);
    const started = events.find((e) => e.eventType === Event.EVENT_TYPE_ACTIVITY_TASK_STARTED && of(e));
    const completed = events.find((e) => e.eventType === Event.EVENT_TYPE_ACTIVITY_TASK_COMPLETED && of(e));
    if (!started || !completed) throw new Error(`run ${runId}: ${type} did not complete`);
    return { scheduled: ms(scheduled), started: ms(started), completed: ms(completed) };
  };
  return { callServerTool: times('callServerTool'), listToolServerTools: times('listToolServerTools') };
}
