import { createRequire } from 'node:module';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { Tracing } from '../observability/tracing.ts';

const require = createRequire(import.meta.url);

/** The workflow interceptors' module: webpack bundles it with the workflow code (compiled: the .js beside us in dist). */
export const WORKFLOW_TRACING_MODULE = require.resolve(
  `../workflows/tracing-interceptors${import.meta.filename.endsWith('.js') ? '.js' : '.ts'}`,
);

/**
 * What tracing adds to a worker (and a replay worker): our workflow interceptors in the
 * bundle (src/workflows/tracing-interceptors.ts), a span around each activity continuing
 * the workflow's trace, and the sink through which the workflow sandbox's spans leave.
 */
export function tracingWorkerOptions(tracing: Pick<Tracing, 'tracer' | 'resource' | 'spanProcessor'>): {
  workflowModules: string[];
  activity: ActivityInterceptorsFactory[];
  sinks: InjectedSinks<Record<string, never>>;
} {
  return {
    workflowModules: [WORKFLOW_TRACING_MODULE],
    activity: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) } as unknown as InjectedSinks<
      Record<string, never>
    >,
  };
}
