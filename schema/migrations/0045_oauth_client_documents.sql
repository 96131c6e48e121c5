-- OAuth clients that are client ID metadata documents (the MCP authorization spec's preferred
-- registration): the client ID is the document's https URL, and the service keeps what it fetched there,
-- with when, and until when it serves it without fetching again (its Cache-Control, within bounds:
-- api/oauth/client-documents.ts). NULL for clients registered with RFC 7591.
ALTER TABLE oauth_clients ADD COLUMN document_fetched_at timestamptz;
ALTER TABLE oauth_clients ADD COLUMN document_fresh_until timestamptz;
