/**
 * A run's stored events, read from the start and then followed while the run goes on (the SDK polls the
 * tail of a live run's history). Events arrive a page at a time; they are shown in batches, not one render each.
 */
import type { AgentRunClient, RunEventRecord } from '@agent-run/client';
import { useEffect, useState } from 'preact/hooks';

const PAGE = 1000;
const BATCH_MS = 100;

export interface RunEvents {
  records: RunEventRecord[];
  /** The first page has been read: until then "no events" would be a lie. */
  loaded: boolean;
  /** The history has ended (its terminal event is read). */
  ended: boolean;
  error?: unknown;
}

export function useRunEvents(client: AgentRunClient | undefined, runId: string): RunEvents {
  const [state, setState] = useState<RunEvents>({ records: [], loaded: false, ended: false });
  useEffect(() => {
    setState({ records: [], loaded: false, ended: false });
    if (!client) return;
    const abort = new AbortController();
    const all: RunEventRecord[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A live run with nothing stored yet: say so rather than load forever.
    const quiet = setTimeout(() => flush(), 2000);
    const flush = (ended = false) => {
      clearTimeout(timer);
      clearTimeout(quiet);
      timer = undefined;
      setState({ records: [...all], loaded: true, ended });
    };
    (async () => {
      for await (const record of client.runs.events(runId, { limit: PAGE, signal: abort.signal })) {
        all.push(record);
        timer ??= setTimeout(() => flush(), BATCH_MS);
      }
      flush(true);
    })().catch((error: unknown) => abort.signal.aborted || setState((s) => ({ ...s, loaded: true, error })));
    return () => {
      abort.abort();
      clearTimeout(timer);
      clearTimeout(quiet);
    };
  }, [client, runId]);
  return state;
}
