-- Flows: triggers that start runs of an agent (cron on a Temporal Schedule, an inbound webhook,
-- a repository event, an inbound email, a Slack message). A flow's events are kept one row each,
-- keyed by the external event id, so a repeated delivery starts nothing; a task started by a
-- flow records its source.
CREATE TABLE "flows" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "message_template" TEXT NOT NULL,
    "task_key_template" TEXT,
    "config" JSONB NOT NULL DEFAULT '{}',
    "secret" TEXT,
    "schedule_synced" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flows_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "flows_org_id_name_key" ON "flows"("org_id", "name");
ALTER TABLE "flows" ADD CONSTRAINT "flows_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "flows" ADD CONSTRAINT "flows_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "flows" ADD CONSTRAINT "flows_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "flow_events" (
    "flow_id" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "task_key" TEXT,
    "task_id" TEXT,
    "run_id" TEXT,
    "error" TEXT,
    "reply_started_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flow_events_pkey" PRIMARY KEY ("flow_id", "external_id")
);
CREATE INDEX "flow_events_run_id_created_at_idx" ON "flow_events"("run_id", "created_at");
ALTER TABLE "flow_events" ADD CONSTRAINT "flow_events_flow_id_fkey" FOREIGN KEY ("flow_id") REFERENCES "flows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One task per key (an issue number, a Slack thread) for flows with a task key template.
CREATE TABLE "flow_tasks" (
    "flow_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,

    CONSTRAINT "flow_tasks_pkey" PRIMARY KEY ("flow_id", "key")
);
ALTER TABLE "flow_tasks" ADD CONSTRAINT "flow_tasks_flow_id_fkey" FOREIGN KEY ("flow_id") REFERENCES "flows"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "flow_tasks" ADD CONSTRAINT "flow_tasks_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Where a task came from: {flow_id, kind, external_id} for tasks a flow started; null otherwise.
ALTER TABLE "tasks" ADD COLUMN "source" JSONB;
