/**
 * The workflow side of tracing (bundled into the workflow code when tracing is on; see
 * src/worker/run-worker.ts). Not a workflow: the interceptors the OpenTelemetry plugin
 * would add, minus the ones on signals, updates and queries. Those await around the
 * handler, which moves an update's completion behind commands issued in the same
 * activation: a run paused and resumed while tracing was off then failed replay with
 * tracing on (test/replay.test.ts replays every saved history both ways). Kept: one span
 * for the workflow's execution, one per scheduled activity, the trace passed to
 * activities in their headers, and span export through the sink at disposal.
 */
import type { SignalInput, UpdateInput, WorkflowInterceptors } from '@temporalio/workflow';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';

class RunInboundInterceptor extends OpenTelemetryInboundInterceptor {
  override handleSignal(input: SignalInput, next: (input: SignalInput) => Promise<void>): Promise<void> {
    return next(input);
  }

  override handleUpdate(input: UpdateInput, next: (input: UpdateInput) => Promise<unknown>): Promise<unknown> {
    return next(input);
  }

  override validateUpdate(input: UpdateInput, next: (input: UpdateInput) => void): void {
    next(input);
  }
}

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new RunInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
