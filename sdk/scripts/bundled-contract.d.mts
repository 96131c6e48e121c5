// Types of bundled-contract.mjs for the TypeScript that reads it (the SDK's tests).
export declare const BUNDLED_CONTRACT_MODULES: readonly string[];
