/** `client.memories`: an agent's long-term memory. */
import type { Transport } from '../transport.ts';
import type { CallOptions, MemoryPage } from '../types.ts';

export interface MemoryListOptions extends Omit<CallOptions, 'agentId'> {
  /** Page size, 1-200 (default 50). */
  limit?: number;
  /** The `next_cursor` of an earlier page. */
  cursor?: string;
  /** Full-text filter (web-search syntax). */
  q?: string;
  tag?: string;
}

export class Memories {
  constructor(
    private readonly transport: Transport,
    private readonly defaultAgentId: string | undefined,
  ) {}

  /** One page of the agent's memories, newest first (GET /api/agents/{agent_id}/memories); the client's agent by default. */
  list(agentId?: string, opts: MemoryListOptions = {}): Promise<MemoryPage> {
    const id = agentId ?? this.defaultAgentId;
    if (!id) throw new TypeError('memories.list needs an agent id (or the client option agentId)');
    const { signal, ...query } = opts;
    return this.transport.json({
      method: 'GET',
      path: `/api/agents/${encodeURIComponent(id)}/memories`,
      query: { ...query },
      agentId: id,
      signal,
      idempotent: true,
    });
  }
}
