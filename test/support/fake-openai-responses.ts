import {
  halves,
  startFakeProvider,
  type FakeProvider,
  type FakeProviderOptions,
  type ProviderDialect,
  type SseEvent,
} from './fake-sse-server.ts';

/**
 * OpenAI's Responses API, which `createOpenAI(...)(model)` uses (the Chat
 * Completions API only through `.chat(model)`): `POST {baseURL}/responses` with
 * `stream: true` and a Bearer key, answered by the documented event stream
 * (response.created, output items for the message and each function call with
 * their deltas, response.completed carrying the usage).
 */
const openaiResponses: ProviderDialect = {
  path: '/v1/responses',
  events({ chunks, toolCalls }, usage, requestNo) {
    const events: SseEvent[] = [];
    const emit = (type: string, fields: Record<string, unknown>) =>
      events.push({ event: type, data: { type, sequence_number: events.length, ...fields } });
    const response = {
      id: `resp_fake_${requestNo}`,
      object: 'response',
      created_at: 1_700_000_000,
      model: 'fake-gpt',
      output: [] as unknown[],
    };
    emit('response.created', { response: { ...response, status: 'in_progress', usage: null } });
    emit('response.in_progress', { response: { ...response, status: 'in_progress', usage: null } });
    if (chunks.length) {
      const output_index = response.output.length;
      const item_id = `msg_fake_${requestNo}`;
      const text = chunks.join('');
      const part = { type: 'output_text', text: '', annotations: [] };
      emit('response.output_item.added', {
        output_index,
        item: { id: item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      });
      emit('response.content_part.added', { item_id, output_index, content_index: 0, part });
      for (const delta of chunks)
        emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
      emit('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] });
      emit('response.content_part.done', { item_id, output_index, content_index: 0, part: { ...part, text } });
      const item = {
        id: item_id,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ ...part, text }],
      };
      emit('response.output_item.done', { output_index, item });
      response.output.push(item);
    }
    for (const [n, call] of toolCalls.entries()) {
      const output_index = response.output.length;
      const item_id = `fc_fake_${requestNo}_${n}`;
      const args = JSON.stringify(call.args);
      const item = {
        id: item_id,
        type: 'function_call',
        status: 'in_progress',
        call_id: `call_fake_${requestNo}_${n}`,
        name: call.name,
        arguments: '',
      };
      emit('response.output_item.added', { output_index, item });
      for (const delta of halves(args))
        emit('response.function_call_arguments.delta', { item_id, output_index, delta });
      emit('response.function_call_arguments.done', { item_id, output_index, arguments: args });
      const done = { ...item, status: 'completed', arguments: args };
      emit('response.output_item.done', { output_index, item: done });
      response.output.push(done);
    }
    emit('response.completed', {
      response: {
        ...response,
        status: 'completed',
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        },
      },
    });
    return events;
  },
  errorBody(status, echoedKey) {
    // OpenAI's own 401 shows the key masked, like this; a careless gateway may not.
    const shown = echoedKey ?? 'sk-fake****1234';
    if (status === 401)
      return {
        error: {
          message: `Incorrect API key provided: ${shown}.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      };
    return { error: { message: 'fake failure', type: 'server_error', param: null, code: null } };
  },
};

export function startFakeOpenAiResponses(opts: FakeProviderOptions): Promise<FakeProvider> {
  return startFakeProvider(openaiResponses, opts);
}
