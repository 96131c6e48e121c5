-- How appended events are announced on the session_events channel, in one place for both appenders
-- (store/events.ts appendEvents, store/delta-batch.ts) and read by store/event-notices.ts:
--   `<sessionId>:<lastSeq>`, and when the whole payload stays under NOTIFY's 8000-byte limit, a newline
--   and the events themselves: {"at": <ISO time>, "events": [[seq, type, data], ...]} in base64. Base64
--   has no colon, so an API of the version before, which takes the text after the last colon for the
--   seq, still reads the session and wakes it (a rolling deploy upgrades the workers first).
-- A listener holding everything up to the first of them takes the events from the notice instead of
-- reading them back (a streamed token is then one round trip from the worker to the reader, not two).
-- `at` is written as Date.prototype.toISOString prints the stored time, as store/event-frames.ts does;
-- every event of a transaction has the same `at`, its now().
CREATE FUNCTION announce_session_events(channel text, session_id text, last_seq bigint, events json) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  head text := session_id || ':' || last_seq;
  body text;
BEGIN
  IF events IS NOT NULL THEN
    body := encode(convert_to(
      json_build_object('at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'events', events)::text, 'UTF8'), 'base64');
    -- 7999: NOTIFY refuses a payload of 8000 bytes or more, and that would fail the whole transaction.
    IF octet_length(head) + 1 + octet_length(body) <= 7999 THEN
      PERFORM pg_notify(channel, head || E'\n' || body);
      RETURN last_seq;
    END IF;
  END IF;
  PERFORM pg_notify(channel, head);
  RETURN last_seq;
END
$$;
