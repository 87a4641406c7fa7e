-- Runs started by an inbound event act with guest-level tools unless the flow grants its user's.
ALTER TABLE "flows" ADD COLUMN "sender_access" TEXT NOT NULL DEFAULT 'guest';

-- A repository (GitHub) delivery signs only its body: the same body under a new delivery id is the same event.
ALTER TABLE "flow_events" ADD COLUMN "payload_hash" TEXT;
CREATE UNIQUE INDEX "flow_events_flow_id_payload_hash_key" ON "flow_events"("flow_id", "payload_hash");
