// What an OAuth grant may hold: what an MCP client needs (talking to the agent, reading its sessions).
// A grant works only at its agent's MCP URL, so no other scope would do anything there.
import type { Scope } from '../../contract/scopes.ts';

export const OAUTH_SCOPES = ['read', 'sessions:write'] as const satisfies readonly Scope[];
