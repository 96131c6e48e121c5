-- Where an approval was asked, as a W3C traceparent: its span (lib/genai-spans.ts), written when it is
-- answered or expires, maybe days later and in another process, joins the trace of the request that
-- started the turn which asked. Null while tracing is off, and for approvals asked before this column.
ALTER TABLE approvals ADD COLUMN trace_parent text;
