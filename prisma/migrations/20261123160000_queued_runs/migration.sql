-- A second message while a run is busy (POST /api/run `multitask_strategy`): `enqueue`,
-- `interrupt` and `rollback` store the new run queued. A queued run is `pending` with
-- `queued_at` set; its request messages wait in `queued_messages` (they join the conversation
-- when it starts, after everything the run before it wrote); `rolls_back` lists the runs its
-- start deletes (`rollback`). Starting it clears `queued_at` and `queued_messages`.
ALTER TABLE "runs" ADD COLUMN "queued_at" TIMESTAMPTZ(3),
                   ADD COLUMN "queued_messages" JSONB,
                   ADD COLUMN "rolls_back" TEXT[] DEFAULT ARRAY[]::TEXT[];

