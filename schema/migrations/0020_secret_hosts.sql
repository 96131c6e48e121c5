-- The hosts a secret may be sent to in a tool's request headers (`{{secrets.KEY}}` in the http tool):
-- exact names, or `*.example.com` for its subdomains. A secret stored before this names none, so it
-- keeps working for providers and channels but is refused in tool headers until its owner names them.
ALTER TABLE secrets ADD COLUMN hosts text[] NOT NULL DEFAULT '{}';
