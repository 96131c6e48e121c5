// Settings every recording runs with. Workflow payloads are written in plaintext while recording
// (TEMPORAL_PAYLOAD_ENCRYPTION=off): a fixture stays readable in review, and the check that no key or
// token of the recording is in it means something. The replay test reads encrypted payloads as well.
export const RECORDING_ENV = { TEMPORAL_PAYLOAD_ENCRYPTION: 'off' } as const;
