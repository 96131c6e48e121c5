// The public contract of the service: what a client (the SDK, the CLI, the dashboard, anyone's code)
// may import instead of copying types. It imports nothing with I/O and runs in a browser as in Node;
// the lint's layer rules keep it so, and test/unit/contract.test.ts bundles it for a browser to prove it.
// Every HTTP operation is data here (operations/: schemas written `as const`, types derived from
// them), and the OpenAPI document is built from those alone (openapi/; committed as openapi.json).
export * from './bundle.ts';
export * from './bundle-constants.ts';
export { BUNDLE_SCHEMA } from './bundle-schema.ts';
export * from './events.ts';
export * from './webhook-events.ts';
export * from './problems.ts';
export * from './scopes.ts';
export * from './approvals.ts';
export * from './tool-servers.ts';
export * from './operations/index.ts';
export * from './operations/by-id.ts';
export * from './openapi/index.ts';
export * from './commands.ts';
export * from './turn-events.ts';
export * from './webhook-signing.ts';
