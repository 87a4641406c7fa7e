import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
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
 * OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself.
 */
export function startTracing(config: Config, defaultServiceName: string): Tracing | undefined {
  const settings = config.observability.tracing;
  if (!settings) return undefined;
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
