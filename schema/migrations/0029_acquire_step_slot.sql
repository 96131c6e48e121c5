-- Taking a place (store/step-slots.ts) in one round trip and under the user's lock: the count must see
-- every place taken under that lock before, so it has to be read after the lock is held. A statement's
-- snapshot is taken when it starts, before a lock it waits for inside; each statement of a VOLATILE
-- function takes its own, so here the lock is taken first and the count read after it, in one call.
CREATE FUNCTION acquire_step_slot(p_user_id text, p_key text, p_limit integer, p_lease_ms double precision, p_workflow_id text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  taken boolean;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('step-slots:' || p_user_id, 0));
  DELETE FROM step_slots WHERE user_id = p_user_id AND expires_at < now();
  -- Its own place, from an earlier attempt, is renewed; another is taken only below the limit.
  INSERT INTO step_slots (step_key, user_id, expires_at)
  SELECT p_key, p_user_id, now() + p_lease_ms * interval '1 millisecond'
   WHERE (SELECT count(*) FROM step_slots WHERE user_id = p_user_id AND step_key <> p_key AND expires_at >= now()) < p_limit
  ON CONFLICT (step_key) DO UPDATE SET expires_at = EXCLUDED.expires_at;
  taken := FOUND;
  IF taken THEN
    DELETE FROM step_waiters WHERE step_key = p_key;
  ELSE
    -- Listed among the user's waiters, keeping its first `since` so it stays ahead of later ones.
    INSERT INTO step_waiters (step_key, user_id, workflow_id) VALUES (p_key, p_user_id, p_workflow_id)
    ON CONFLICT (step_key) DO UPDATE SET woken_at = NULL;
  END IF;
  RETURN taken;
END
$$;
