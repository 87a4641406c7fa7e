-- A run's end moves its task's queue (runs waiting with queued_at set). Until now every api
-- process asked PostgreSQL, on every terminal event it was told of, whether that run's task had
-- queued runs: one query per api per run end, nearly always answered "no". The trigger now asks
-- once, while it stores the terminal event, and notifies channel "task_queues" with the task id
-- only when there is a queue to move. The apis start its next run (the task's lock lets one of
-- them do it); a notification missed while an api was not listening is the reconciler's, as before.
-- Run events keep their notification on "run_events" exactly as before.
CREATE OR REPLACE FUNCTION "notify_run_event"() RETURNS trigger AS $$
DECLARE
    message text := NEW."run_id" || ' ' || NEW."seq" || ' ' || floor(extract(epoch FROM NEW."created_at") * 1000)::bigint || ' ' || NEW."payload"::text;
    queued_task text;
BEGIN
    IF octet_length(message) > 7900 THEN
        message := NEW."run_id" || ' ' || NEW."seq";
    END IF;
    PERFORM pg_notify('run_events', message);
    IF NEW."type" IN ('RUN_FINISHED', 'RUN_ERROR') THEN
        -- The task's row is share-locked first, and the queue read after, in a statement of its own:
        -- a request queueing a run holds that row (FOR UPDATE) until it commits, so its run is
        -- either seen here, or stored only after this run's end is committed (and then it is not
        -- queued behind it, or its own request moves the queue).
        SELECT t."id" INTO queued_task FROM "runs" r JOIN "tasks" t ON t."id" = r."task_id"
        WHERE r."id" = NEW."run_id" FOR SHARE OF t;
        IF queued_task IS NOT NULL AND EXISTS (SELECT 1 FROM "runs" q WHERE q."task_id" = queued_task AND q."queued_at" IS NOT NULL) THEN
            PERFORM pg_notify('task_queues', queued_task);
        END IF;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
