-- The notification of an inserted event carries the event itself, so the api's event hub hands
-- it to the run's streams without reading the row back (one query per event per run saved, and
-- its round trip off the relay's latency). Format, space separated:
--   "<run_id> <seq> <created_at epoch ms> <payload json>"  when it fits pg_notify's 8000 bytes,
--   "<run_id> <seq>"                                       otherwise (the hub then reads the row).
-- The run id comes first so a hub can skip runs nobody streams without parsing JSON. Every row
-- now notifies (distinct payloads are not folded); a lost notification still only delays an
-- event: streams re-read the table on a gap in seq and on every heartbeat.
CREATE OR REPLACE FUNCTION "notify_run_event"() RETURNS trigger AS $$
DECLARE
    message text := NEW."run_id" || ' ' || NEW."seq" || ' ' || floor(extract(epoch FROM NEW."created_at") * 1000)::bigint || ' ' || NEW."payload"::text;
BEGIN
    IF octet_length(message) > 7900 THEN
        message := NEW."run_id" || ' ' || NEW."seq";
    END IF;
    PERFORM pg_notify('run_events', message);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
