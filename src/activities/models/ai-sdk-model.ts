import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText, type LanguageModel } from 'ai';
import { toModelRequest, toToolSet } from './ai-sdk-messages.ts';
import type { ModelChunk, ModelProvider, ModelRequest } from './provider.ts';

export interface AiSdkModelSettings {
  provider: 'openai-compatible' | 'openai' | 'anthropic';
  model: string;
  baseUrl?: string;
  apiKey?: string;
  temperature?: number;
  maxOutputTokens?: number;
}

/** A provider reached over HTTP through the Vercel AI SDK. Retries are Temporal's job, so the SDK's own are off. */
export class AiSdkModel implements ModelProvider {
  readonly label: string;
  private readonly model: LanguageModel;

  constructor(private readonly settings: AiSdkModelSettings) {
    this.label = `${settings.provider}:${settings.model}`;
    this.model = languageModel(settings);
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const result = streamText({
      model: this.model,
      ...toModelRequest(request.system, request.messages),
      tools: toToolSet(request.tools),
      abortSignal: request.signal,
      maxRetries: 0,
      // Errors arrive as 'error' parts below and are reported by the activity; the SDK's own console logging is noise.
      onError: () => {},
      temperature: this.settings.temperature,
      maxOutputTokens: this.settings.maxOutputTokens,
    });
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          if (part.text) yield { type: 'text', text: part.text };
          break;
        case 'reasoning-delta':
          if (part.text) yield { type: 'reasoning', text: part.text };
          break;
        case 'tool-input-start':
          yield { type: 'tool-start', id: part.id, name: part.toolName };
          break;
        case 'tool-input-delta':
          if (part.delta) yield { type: 'tool-args', id: part.id, delta: part.delta };
          break;
        case 'tool-call':
          yield { type: 'tool-call', id: part.toolCallId, name: part.toolName, args: part.input };
          break;
        case 'error':
          throw withoutKey(part.error, this.settings.apiKey);
        case 'finish':
          yield {
            type: 'finish',
            usage: { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 },
          };
          break;
        default:
          break;
      }
    }
  }
}

/**
 * The provider's error with our key blanked out of its message: some gateways repeat the key they
 * were sent, and the message goes on to the run's RUN_ERROR event and the worker's log.
 */
function withoutKey(error: unknown, apiKey: string | undefined): Error {
  const err = error instanceof Error ? error : new Error(String(error));
  if (!apiKey || !err.message.includes(apiKey)) return err;
  // A fresh error: the original also keeps the key in its response body and headers.
  const { isRetryable } = err as { isRetryable?: boolean };
  return Object.assign(new Error(err.message.replaceAll(apiKey, '[redacted]')), { name: err.name, isRetryable });
}

function languageModel(s: AiSdkModelSettings): LanguageModel {
  switch (s.provider) {
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: s.baseUrl!,
        apiKey: s.apiKey,
        includeUsage: true,
      })(s.model);
    case 'openai':
      return createOpenAI({ baseURL: s.baseUrl, apiKey: s.apiKey })(s.model);
    case 'anthropic':
      return createAnthropic({ baseURL: s.baseUrl, apiKey: s.apiKey })(s.model);
  }
}
