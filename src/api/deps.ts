import type { SecretBox } from '../auth/secret-box.ts';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { TokenService } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Drain } from './drain.ts';
import type { OrgStartGate } from './services/org-start-gate.ts';
import type { RateLimits } from './middleware/rate-limit.ts';
import type { EventHub } from './streaming/event-hub.ts';
import type { StreamSlots } from './streaming/stream-slots.ts';

/** What the HTTP layer needs, built once per api process. */
export interface ApiDeps {
  db: Db;
  config: Config;
  temporal: Client;
  tokens: TokenService;
  /** Seals the orgs' secrets as they are set; opens those Connect needs (a tool server's client secret and headers). */
  secrets: SecretBox;
  hub: EventHub;
  logger: Logger;
  /** Per org-and-user request limits, counted in the database so all replicas share them. */
  rateLimits: RateLimits;
  /** Caps on open SSE streams in this process. */
  streams: StreamSlots;
  /** This process leaving: refuses new requests, ends streams with a reconnect notice. */
  drain: Drain;
  /** Run starts in flight per org in this process (RUN_STARTS_IN_FLIGHT_PER_ORG). */
  startGate: OrgStartGate;
}
