/** `client.agents`: the agents the caller may use (any role). */
import type { Transport } from '../transport.ts';
import type { CallOptions, UsableAgentList } from '../types.ts';

export class Agents {
  constructor(private readonly transport: Transport) {}

  /** Owners and admins: every agent of the org, with settings and access; members and guests: those granted (GET /api/agents). */
  list(opts: Omit<CallOptions, 'agentId'> = {}): Promise<UsableAgentList> {
    return this.transport.json({ method: 'GET', path: '/api/agents', signal: opts.signal, idempotent: true });
  }
}
