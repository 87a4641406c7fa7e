import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client, Connection, type WorkflowStartOptions } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { inFlight } from '../pool.ts';
import * as activities from './activities.ts';

/** The floor's workflow, the same with a local activity (bench/local-floor.ts), or with our run's end (bench/temporal-cost.ts). */
export type FloorWorkflowType = keyof typeof import('./workflows.ts');

/** What a start may add to the bare one (search attributes, metadata, priority: bench/temporal-cost.ts). */
export type FloorStartExtras = Pick<
  WorkflowStartOptions,
  'typedSearchAttributes' | 'staticSummary' | 'staticDetails' | 'priority' | 'args'
>;

export interface FloorSample {
  workflowId: string;
  /** Epoch ms just before the client's start call. */
  startedAt: number;
  /** Client's start call → the activity began (ms). */
  firstActivity: number;
  /** Client's start call → the workflow's result arrived (ms). */
  result: number;
}

/**
 * Temporal's own floor on the stack's dev server: a bare 1-activity workflow, with its own
 * in-process Worker (defaults, like ours) on its own task queue.
 */
export class Floor {
  private constructor(
    private readonly client: Client,
    private readonly connection: Connection,
    private readonly worker: Worker,
    private readonly running: Promise<void>,
    private readonly taskQueue: string,
  ) {}

  static async start(address: string): Promise<Floor> {
    const taskQueue = `bench-floor-${randomBytes(3).toString('hex')}`;
    const workerConnection = await NativeConnection.connect({ address });
    const worker = await Worker.create({
      connection: workerConnection,
      taskQueue,
      workflowsPath: path.join(import.meta.dirname, 'workflows.ts'),
      activities,
    });
    const running = worker.run().finally(() => workerConnection.close());
    const connection = await Connection.connect({ address });
    return new Floor(new Client({ connection }), connection, worker, running, taskQueue);
  }

  /** One bare workflow, timed from just before the client's start call. */
  async once(workflowType: FloorWorkflowType = 'floorWorkflow', extras: FloorStartExtras = {}): Promise<FloorSample> {
    const t0 = Date.now();
    const workflowId = `floor-${randomBytes(6).toString('hex')}`;
    const handle = await this.client.workflow.start(workflowType, {
      args: [],
      ...extras,
      taskQueue: this.taskQueue,
      workflowId,
    });
    const activityStartedAt = await handle.result();
    return { workflowId, startedAt: t0, firstActivity: activityStartedAt - t0, result: Date.now() - t0 };
  }

  /** `total` workflows with `concurrency` in flight: the wall time they took (ms). */
  async throughput(
    total: number,
    concurrency: number,
    workflowType: FloorWorkflowType = 'floorWorkflow',
    extras: FloorStartExtras = {},
  ): Promise<number> {
    const { results, wallMs } = await inFlight(total, concurrency, () => this.once(workflowType, extras));
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed > 0) throw new Error(`${failed} floor workflows failed`);
    return wallMs;
  }

  /** The Temporal client of the bench, for reading histories. */
  get temporal(): Client {
    return this.client;
  }

  async stop(): Promise<void> {
    this.worker.shutdown();
    await this.running;
    await this.connection.close();
  }
}
