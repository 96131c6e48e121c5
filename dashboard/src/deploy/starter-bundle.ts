// What the editor holds for a new agent: the fields every bundle needs, with comments saying what
// else there is (JSONC, so the comments deploy as they are).
export const STARTER_BUNDLE = `{
  // Lower-case letters, digits, - and _: the agent's name in URLs.
  "name": "my-agent",
  "model": { "providerId": "openrouter", "modelId": "anthropic/claude-sonnet-4" },
  "instructions": "You are a helpful assistant.",
  // "triggers": [{ "kind": "webhook" }, { "kind": "cron", "expression": "@daily", "message": "Daily summary" }],
  // "secretGrants": ["OPENROUTER_API_KEY"],
}
`;
