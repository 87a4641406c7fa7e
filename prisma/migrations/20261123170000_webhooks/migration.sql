-- Outbound run webhooks (Standard Webhooks). A subscription names an org (optionally one agent),
-- a URL, a signing secret and the event types it wants. A delivery is one event for one
-- subscription: its id is the `webhook-id` every attempt carries, so a receiver that saw it
-- already can drop it. Attempts are logged one row each.
CREATE TABLE "webhook_subscriptions" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "agent_id" TEXT,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "events" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "webhook_subscriptions_org_id_name_key" ON "webhook_subscriptions"("org_id", "name");
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "subscription_id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "run_id" TEXT,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "resends" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_deliveries_org_id_created_at_idx" ON "webhook_deliveries"("org_id", "created_at" DESC);
CREATE INDEX "webhook_deliveries_dispatched_at_created_at_idx" ON "webhook_deliveries"("dispatched_at", "created_at");
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "webhook_attempts" (
    "delivery_id" TEXT NOT NULL,
    "resend" INTEGER NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("delivery_id", "resend", "attempt")
);
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The outbox: an event that a subscription wants becomes a delivery in the transaction that
-- stores the event, whichever code path wrote it. Its id is derived from (subscription, run,
-- seq), so the same event can never become two deliveries. Only the four event kinds reach the
-- function (the trigger's WHEN); token deltas cost nothing.
CREATE OR REPLACE FUNCTION "enqueue_webhook_deliveries"() RETURNS trigger AS $$
DECLARE
    kind text;
BEGIN
    IF NEW."type" = 'RUN_FINISHED' THEN
        kind := 'run.completed';
    ELSIF NEW."type" = 'RUN_ERROR' THEN
        kind := CASE WHEN NEW."payload"->>'code' = 'CANCELLED' THEN 'run.cancelled' ELSE 'run.failed' END;
    ELSE
        kind := CASE WHEN NEW."payload"->'data'->>'input_type' IN ('plan_approval', 'action_approval') THEN 'approval.requested' ELSE 'run.awaiting_input' END;
    END IF;
    INSERT INTO "webhook_deliveries" ("id", "subscription_id", "org_id", "event_type", "run_id", "payload")
    SELECT 'msg_' || md5(s."id" || ':' || NEW."run_id" || ':' || NEW."seq"), s."id", t."org_id", kind, NEW."run_id",
           jsonb_build_object(
               'type', kind,
               'timestamp', to_char(NEW."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'data', jsonb_build_object('org_id', t."org_id", 'agent_id', t."agent_id", 'task_id', t."id",
                                          'run_id', NEW."run_id", 'event', NEW."payload"))
    FROM "runs" r
    JOIN "tasks" t ON t."id" = r."task_id"
    JOIN "webhook_subscriptions" s ON s."org_id" = t."org_id" AND (s."agent_id" IS NULL OR s."agent_id" = t."agent_id")
    WHERE r."id" = NEW."run_id" AND s."disabled_at" IS NULL AND kind = ANY(s."events")
    ON CONFLICT ("id") DO NOTHING;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "run_events_webhooks" AFTER INSERT ON "run_events"
FOR EACH ROW WHEN (NEW."type" IN ('RUN_FINISHED', 'RUN_ERROR') OR NEW."name" = 'USER_INPUT_REQUIRED')
EXECUTE FUNCTION "enqueue_webhook_deliveries"();
