-- Webhook event payloads no longer carry approval answer links: the delivery log is readable with the
-- `read` scope, and a link answers the approval. Links already stored in `approval.requested`
-- deliveries are removed (a pending one is sent without them from now on; its signature is computed
-- on each attempt, so it still verifies).
UPDATE webhook_deliveries
   SET body = (body::jsonb #- '{data,links}')::text
 WHERE event_type = 'approval.requested'
   AND body::jsonb -> 'data' ? 'links';
