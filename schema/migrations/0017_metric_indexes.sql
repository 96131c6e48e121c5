-- The metrics count busy sessions and unanswered approvals at every scrape (store/metric-reads.ts):
-- partial indexes hold just those rows, so a count reads a handful of entries, not whole tables.
CREATE INDEX sessions_busy_idx ON sessions (status) WHERE status <> 'idle';
CREATE INDEX approvals_unanswered_idx ON approvals (status) WHERE status = 'unanswered';
