import type { Role } from '../db/users.ts';

/** Who is calling: the user of a verified token, with their org and their role as the database has it now. */
export interface Caller {
  userId: string;
  orgId: string;
  role: Role;
  /** A widget visitor's widget key: its runs, streams and credits count per key too. */
  widgetKeyId?: string;
}

export interface AgentContext {
  id: string;
  orgId: string;
  name: string;
  customerFacing: boolean;
  /** The agent's stored model settings, as read with the access check (a run's policy comes from them). */
  modelSettings: unknown;
  /**
   * The org's credit balance, read in the same statement as the caller and the agent (requests
   * naming the agent in `X-Agent-Id`): a run start's pre-flight check then needs no read of its own.
   */
  orgCreditBalance?: bigint;
  /** The org's limit of concurrent runs (null: none), read with the credit balance. */
  orgMaxConcurrentRuns?: number | null;
}
