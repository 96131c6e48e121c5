// Where other clients reach the agent: its MCP server's URL, to paste into Claude, Cursor or VS Code
// with an API key as the Bearer token (docs/mcp.md says how for each).
import { CopyButton } from '../ui/copy-button.tsx';

export function ConnectSection({ mcpUrl }: { mcpUrl: string }) {
  return (
    <section aria-labelledby="connect-heading">
      <h2 id="connect-heading">Connect</h2>
      <dl class="facts">
        <dt>MCP server</dt>
        <dd>
          <code>{mcpUrl}</code> <CopyButton value={mcpUrl} label="Copy the MCP server URL" />
        </dd>
      </dl>
      <p class="hint">
        Add this URL to an MCP client (Claude Code, Claude Desktop, Cursor, VS Code) with an API key sent as{' '}
        <code>Authorization: Bearer &lt;key&gt;</code>. The agent's tools there: <code>send_message</code>, <code>get_session</code>,{' '}
        <code>list_sessions</code> and one per command.
      </p>
    </section>
  );
}
