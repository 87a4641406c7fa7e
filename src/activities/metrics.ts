import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { TokenUsage } from '../shared/run-workflow-types.ts';

/**
 * Our metrics from activities go through the activity context's metricMeter, so they leave
 * by the worker's Prometheus endpoint with Temporal's own (prefixed `temporal_` there).
 * Undefined outside an activity (a test calling the function directly).
 */
function meter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined;
  }
}

/** Tokens a model call used (every attempt, also those a retry discards: they were spent), by direction and model. */
export function countModelTokens(usage: TokenUsage, model: string): void {
  const counter = meter()?.createCounter(
    'ars_model_tokens',
    'tokens',
    'Model tokens used, by direction (input/output) and model',
  );
  counter?.add(usage.inputTokens, { direction: 'input', model });
  counter?.add(usage.outputTokens, { direction: 'output', model });
}

/** A run reached a terminal status (counted once: only by the step that stored it). */
export function countRunEnded(status: string, mode: string): void {
  meter()?.createCounter('ars_runs_ended', 'runs', 'Runs that ended, by status and mode').add(1, { status, mode });
}
