import { trace, type Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Config } from '../config.ts';

/** The OpenTelemetry pieces a process shares with the Temporal interceptors. */
export interface Tracing {
  tracer: Tracer;
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Flushes buffered spans, then stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); undefined otherwise, and then nothing is
 * installed at all: no provider, no interceptors, no spans (the global API stays a no-op).
 * Spans leave in batches over OTLP/HTTP (JSON); the exporter reads the other standard
 * OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself. The SDK and exporter are
 * imported only then: some 4 MiB a process with tracing off never needs.
 */
export async function startTracing(config: Config, defaultServiceName: string): Promise<Tracing | undefined> {
  const settings = config.observability.tracing;
  if (!settings) return undefined;
  const [{ OTLPTraceExporter }, { Resource }, { BatchSpanProcessor, NodeTracerProvider }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  const resource = new Resource({ 'service.name': settings.serviceName ?? defaultServiceName });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 1000 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global provider, AsyncLocalStorage context and W3C trace-context propagation.
  provider.register();
  return {
    tracer: trace.getTracer('agent-run-service'),
    resource,
    spanProcessor,
    shutdown: () => provider.shutdown(),
  };
}
