import type { TokenUsage } from './run-workflow-types.ts';

/**
 * What a run costs: `creditsPer1kTokens` for every thousand tokens, input
 * and output alike, rounded up to a whole credit. A run that used no tokens costs nothing.
 */
export function creditsFor(usage: TokenUsage, creditsPer1kTokens: number): number {
  const tokens = usage.inputTokens + usage.outputTokens;
  return Math.ceil((tokens * creditsPer1kTokens) / 1000);
}

/** The tokens of one model call of a run. */
export interface StepUsage {
  step: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

/**
 * Payload of the CUSTOM `USAGE` event, sent right before a run's terminal event: totals, credits,
 * and each model call; `discarded` counts the tokens of retried model attempts, included in the totals.
 */
export function usageEventData(
  usage: TokenUsage,
  credits: number,
  model: string | undefined,
  steps: StepUsage[] = [],
  discarded?: TokenUsage,
) {
  const retried = discarded && discarded.inputTokens + discarded.outputTokens > 0;
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    credits,
    ...(model ? { model } : {}),
    steps,
    ...(retried ? { discarded: { input_tokens: discarded.inputTokens, output_tokens: discarded.outputTokens } } : {}),
  };
}
