// One line per event for `events`: its seq, time, type and what it says in a few words.
import type { SessionEvent } from '@agent-service/sdk';
import { err } from '../style.ts';
import { terminalText } from '../terminal-text.ts';

const MAX = 100;

export function describeEvent(event: SessionEvent): string {
  const style = err();
  const time = event.at.slice(11, 23);
  return `${style.dim(String(event.seq).padStart(5))} ${style.dim(time)} ${event.type.padEnd(18)} ${terminalText(summary(event))}`.trimEnd();
}

function summary(event: SessionEvent): string {
  switch (event.type) {
    case 'message.part.delta':
      return JSON.stringify(event.delta);
    case 'message.created':
    case 'message.completed': {
      const text = event.message.parts.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('');
      return `${event.message.role} ${event.message.id} ${cut(JSON.stringify(text))}`;
    }
    case 'tool.call':
      return `${event.toolName} ${cut(JSON.stringify(event.input))}${event.executor === 'client' ? ' (client)' : ''}`;
    case 'tool.result':
      return `${event.toolName} ${cut(JSON.stringify(event.output))}${event.isError ? ' (error)' : ''}`;
    case 'turn.failed':
      return event.error;
    case 'approval.requested':
      return `${event.approvalId} ${event.question} [${event.options.join('/')}]`;
    case 'approval.answered':
      return `${event.approvalId} ${event.choice}`;
    default:
      return 'turnId' in event && typeof event.turnId === 'string' ? event.turnId : '';
  }
}

function cut(text: string): string {
  return text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text;
}
