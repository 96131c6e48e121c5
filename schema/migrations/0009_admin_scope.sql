-- Admin actions need the `admin` scope. Keys of admin users that hold every scope there was before it
-- (the first start's key, ADMIN_API_KEY's key, and keys minted without narrowing) get it, so they keep
-- working. A key of an admin user that was narrowed stays without it: narrowing meant "less than
-- everything", so it does not administer. Keys of other users never get it.
UPDATE api_keys k
   SET scopes = k.scopes || ARRAY['admin']::text[]
  FROM users u
 WHERE u.id = k.user_id
   AND u.is_admin
   AND k.scopes @> ARRAY['agents:write', 'sessions:write', 'read', 'secrets:write', 'keys:write', 'webhooks:write', 'approvals:answer']::text[]
   AND NOT k.scopes @> ARRAY['admin']::text[];
