// An agent's custom commands, with how to call them.
import type { AgentDetail } from '@agent-service/sdk';
import { EmptyState } from '../ui/states.tsx';

export function CommandsTable({ commands }: { commands: AgentDetail['commands'] }) {
  if (commands.length === 0) {
    return (
      <EmptyState title="No command.">
        <p>
          Name prompt templates under <code>"command"</code> in the bundle (<code>{'"review": { "template": "Review $ARGUMENTS" }'}</code>)
          to call them as <code>/review …</code>.
        </p>
      </EmptyState>
    );
  }
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Command</th>
          <th scope="col">Usage</th>
          <th scope="col">Template</th>
        </tr>
      </thead>
      <tbody>
        {commands.map((command) => (
          <tr key={command.name}>
            <td>
              <code>/{command.name}</code>
              {command.subtask && <span class="badge muted">subtask</span>}
            </td>
            <td>
              <code>{command.usage}</code>
            </td>
            <td class="pre">{command.template}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
