-- The address a device login was asked from, shown to the person who approves it (with the time it
-- was asked), so a code read out by someone else is recognised as not their own program's.
ALTER TABLE device_authorizations ADD COLUMN requested_from text;
