// The session's raw events as they came, with their seq: what a client of the event stream reads.
import type { SessionEvent } from '@agent-service/sdk';

/** A few words of what an event carries, beside its type. */
function summary(event: SessionEvent): string {
  switch (event.type) {
    case 'message.part.delta':
      return JSON.stringify(event.delta);
    case 'message.created':
    case 'message.completed':
      return `${event.message.role} ${event.message.id}`;
    case 'tool.call':
    case 'tool.result':
      return event.toolName;
    case 'approval.requested':
      return event.question;
    case 'approval.answered':
      return event.choice;
    case 'turn.failed':
      return event.error;
    default:
      return '';
  }
}

export function EventLog({ events }: { events: SessionEvent[] }) {
  return (
    <table aria-label="Event log">
      <thead>
        <tr>
          <th scope="col">Seq</th>
          <th scope="col">Type</th>
          <th scope="col">At</th>
          <th scope="col">Data</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.seq}>
            <td>{event.seq}</td>
            <td>
              <code>{event.type}</code>
            </td>
            <td>{new Date(event.at).toLocaleTimeString()}</td>
            <td class="event-data">{summary(event)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
