// The contract modules the SDK runs, not only reads types from: rules every client must apply as
// the server does (which events are one turn's, what a webhook signature covers), written once in
// contract/ and imported by both. The lint's sdk layer allows runtime imports of these alone, and
// scripts/build.mjs copies them (with the contract modules they import) into dist/contract/,
// refusing one that imports anything outside contract/, so the package still has no dependencies.
export const BUNDLED_CONTRACT_MODULES = ['turn-events.ts', 'webhook-signing.ts'];
