/** Reads a Server-Sent Events response body into messages with eventsource-parser (fetch + streams only). */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type SseMessage = EventSourceMessage;

/**
 * Every complete SSE message of `res`, in order. A frame cut off by a broken connection is
 * never yielded; the broken body throws. Leaving the loop early cancels the body.
 */
export async function* sseMessages(res: Response): AsyncGenerator<SseMessage> {
  if (!res.body) return;
  const queue: SseMessage[] = [];
  const parser = createParser({ onEvent: (message) => void queue.push(message) });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
