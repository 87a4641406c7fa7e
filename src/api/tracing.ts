import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';

/**
 * One SERVER span per request, continuing a caller's W3C `traceparent` if sent. The
 * Temporal client interceptor starts the workflow inside it, so the workflow, its
 * activities and their model calls join this trace. Mounted only when tracing is on,
 * after body parsing (the body parser's stream callbacks would lose the active context).
 */
export const httpTracing: RequestHandler = (req, res, next) => {
  const tracer = trace.getTracer('agent-run-service');
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer.startSpan(
    req.method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': req.path } },
    parent,
  );
  res.once('close', () => {
    const route = (req.route as { path?: string } | undefined)?.path;
    if (route) {
      span.updateName(`${req.method} ${req.baseUrl}${route}`);
      span.setAttribute('http.route', `${req.baseUrl}${route}`);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    const id = res.getHeader('X-Request-Id');
    if (typeof id === 'string') span.setAttribute('ars.request_id', id);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
};
