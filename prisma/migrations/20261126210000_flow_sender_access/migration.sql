-- Runs started by an inbound event act with guest-level tools unless the flow grants its user's.
ALTER TABLE "flows" ADD COLUMN "sender_access" TEXT NOT NULL DEFAULT 'guest';
