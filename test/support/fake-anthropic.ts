import {
  halves,
  startFakeProvider,
  type FakeProvider,
  type FakeProviderOptions,
  type ProviderDialect,
  type SseEvent,
} from './fake-sse-server.ts';

/**
 * Anthropic's Messages API as @ai-sdk/anthropic uses it: `POST {baseURL}/messages`
 * with `stream: true`, the key in `x-api-key`, answered by the documented event
 * stream (message_start, content blocks with text_delta / input_json_delta,
 * message_delta with the stop reason and output tokens, message_stop).
 */
const anthropicMessages: ProviderDialect = {
  path: '/v1/messages',
  events({ chunks, toolCalls }, usage, requestNo) {
    const events: SseEvent[] = [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id: `msg_fake_${requestNo}`,
            type: 'message',
            role: 'assistant',
            model: 'fake-claude',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: usage.input, output_tokens: 1 },
          },
        },
      },
      { event: 'ping', data: { type: 'ping' } },
    ];
    let index = 0;
    const block = (contentBlock: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: contentBlock },
      });
      for (const delta of deltas)
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
      events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
      index++;
    };
    if (chunks.length)
      block(
        { type: 'text', text: '' },
        chunks.map((text) => ({ type: 'text_delta', text })),
      );
    for (const [n, call] of toolCalls.entries()) {
      const partials = halves(JSON.stringify(call.args));
      block(
        { type: 'tool_use', id: `toolu_fake_${requestNo}_${n}`, name: call.name, input: {} },
        partials.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      );
    }
    events.push(
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: toolCalls.length ? 'tool_use' : 'end_turn', stop_sequence: null },
          usage: { output_tokens: usage.output },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    );
    return events;
  },
  errorBody(status, echoedKey) {
    const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error';
    const message = status === 401 ? 'invalid x-api-key' : 'fake failure';
    return { type: 'error', error: { type, message: echoedKey ? `${message} (key ${echoedKey})` : message } };
  },
};

export function startFakeAnthropic(opts: FakeProviderOptions): Promise<FakeProvider> {
  return startFakeProvider(anthropicMessages, opts);
}
