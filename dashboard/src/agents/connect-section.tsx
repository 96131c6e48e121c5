// Where other clients reach the agent: its MCP server's URL, to paste into Claude, Cursor or VS Code
// (signing in with OAuth, or a key as the Bearer token; docs/mcp.md), and its A2A URL for other agents
// (docs/a2a.md).
import { CopyButton } from '../ui/copy-button.tsx';

export function ConnectSection({ mcpUrl, a2aUrl }: { mcpUrl: string; a2aUrl: string }) {
  return (
    <section aria-labelledby="connect-heading">
      <h2 id="connect-heading">Connect</h2>
      <dl class="facts">
        <dt>MCP server</dt>
        <dd>
          <code>{mcpUrl}</code> <CopyButton value={mcpUrl} label="Copy the MCP server URL" />
        </dd>
        <dt>A2A agent</dt>
        <dd>
          <code>{a2aUrl}</code> <CopyButton value={a2aUrl} label="Copy the A2A URL" />
        </dd>
      </dl>
      <p class="hint">
        Add the MCP URL to an MCP client (Claude Code, Claude Desktop, Cursor, VS Code): it signs in with OAuth, which brings you to a page
        here to allow it, or takes an API key as <code>Authorization: Bearer &lt;key&gt;</code>. Its tools: <code>send_message</code>,{' '}
        <code>get_session</code>, <code>list_sessions</code> and one per command. An A2A client reads the agent&apos;s card at{' '}
        <code>{a2aUrl}.well-known/agent-card.json</code> with a key.
      </p>
    </section>
  );
}
