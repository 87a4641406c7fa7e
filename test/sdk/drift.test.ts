import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CLIENT_TYPES_FILE, clientTypesSource } from '../../scripts/client-types.ts';
import type { EventOf, RunEvent, RunEventType } from '@agent-run/client';
import { customEventNames, runEventSchema } from '../../src/shared/events.ts';

/** Every event type of the server's zod union; a type missing on either side fails to compile. */
const serverTypes = runEventSchema.options.map((o) => o.shape.type.value);
type ServerEventType = (typeof serverTypes)[number];
const sameTypes: [RunEventType, ServerEventType] extends [ServerEventType, RunEventType] ? true : false = true;
/** The whole event, field for field, both ways. */
type ServerEvent = z.infer<typeof runEventSchema>;
const sameEvents: [RunEvent, ServerEvent] extends [ServerEvent, RunEvent] ? true : false = true;
type ServerCustomName = (typeof customEventNames)[number];
const sameNames: [EventOf<'CUSTOM'>['name'], ServerCustomName] extends [ServerCustomName, EventOf<'CUSTOM'>['name']]
  ? true
  : false = true;

describe('the typed client', () => {
  it('has the types generated from the current OpenAPI document (npm run generate:client)', async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypesSource());
  });

  it('shares the event union with the server: every one of its event types, one per type', () => {
    expect(sameTypes && sameNames && sameEvents).toBe(true);
    expect(serverTypes).toHaveLength(14);
    const generated = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    const union = generated.slice(
      generated.indexOf('        RunEvent: {'),
      generated.indexOf('        TokenExchangeResponse: {'),
    );
    for (const type of serverTypes) expect(union, type).toContain(`type: "${type}";`);
    // A value the server's schema accepts is a RunEvent to the client, field for field.
    const event: RunEvent = runEventSchema.parse({
      type: 'RUN_STARTED',
      timestamp: 1,
      thread_id: 't',
      run_id: 'r',
      mode: 'fast',
      routing_reason: 'x',
    });
    expect(event.type).toBe('RUN_STARTED');
  });
});
