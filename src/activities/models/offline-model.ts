import type { ChatMessage, ModelChunk, ModelProvider, ModelRequest } from './provider.ts';

export const OFFLINE_MODEL_LABEL = 'offline (built-in deterministic model, no provider configured)';

/**
 * The built-in offline model: deterministic, needs no network, and streams its
 * answer in small chunks like a real model. It is what runs when no provider
 * is configured, so the service works on a machine with no model API.
 */
export class OfflineModel implements ModelProvider {
  readonly label = OFFLINE_MODEL_LABEL;

  constructor(private readonly chunkDelayMs = 15) {}

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const answer = offlineAnswer(request.messages);
    for (const piece of answer.match(/\S+\s*/g) ?? []) {
      request.signal.throwIfAborted();
      if (this.chunkDelayMs > 0) await sleep(this.chunkDelayMs, request.signal);
      yield { type: 'text', text: piece };
    }
    const prompt = request.messages.map((m) => m.content).join('\n') + (request.system ?? '');
    yield { type: 'finish', usage: { inputTokens: estimateTokens(prompt), outputTokens: estimateTokens(answer) } };
  }
}

export function offlineAnswer(messages: ChatMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  const earlier = messages.length - 1;
  const context = earlier > 0 ? ` I can see ${earlier} earlier message${earlier === 1 ? '' : 's'} in this conversation.` : '';
  return `Offline model here (no model provider is configured). You said: "${last?.content ?? ''}".${context}`;
}

/** Roughly four characters per token, the usual rule of thumb for English text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}
