// Usage per day, from the replies themselves: each assistant message records its tokens and cost
// and when it was written, so the sessions active in the window are read (GET /session/<id>, a few
// at a time, up to a bound) and their replies summed by UTC day.
import type { Client, MessageView, SessionView } from '@agent-service/sdk';

export const DAYS = 14;
const MAX_SESSIONS = 200;
const AT_ONCE = 4;

export interface DayUsage {
  /** YYYY-MM-DD, UTC. */
  day: string;
  tokens: number;
  costUsd: number;
}

export interface DailyUsage {
  days: DayUsage[];
  /** More sessions were active in the window than were read. */
  partial: boolean;
}

function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

/** The last `DAYS` UTC days, oldest first, each at zero. */
function emptyDays(now: number): Map<string, DayUsage> {
  const days = new Map<string, DayUsage>();
  for (let back = DAYS - 1; back >= 0; back--) {
    const day = new Date(now - back * 86_400_000).toISOString().slice(0, 10);
    days.set(day, { day, tokens: 0, costUsd: 0 });
  }
  return days;
}

export async function dailyUsage(client: Client, sessions: SessionView[], signal: AbortSignal, now = Date.now()): Promise<DailyUsage> {
  const days = emptyDays(now);
  const first = [...days.keys()][0]!;
  const active = sessions
    .filter((session) => dayOf(session.updatedAt) >= first)
    .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
  const read = active.slice(0, MAX_SESSIONS);
  for (let start = 0; start < read.length; start += AT_ONCE) {
    const views = await Promise.all(read.slice(start, start + AT_ONCE).map((session) => client.sessions.retrieve(session.id, { signal })));
    // GET /session's schema leaves message fields open; they are the contract's MessageView.
    for (const message of views.flatMap((view) => view.messages as unknown as MessageView[])) {
      const day = days.get(dayOf(message.createdAt));
      if (!day || message.role !== 'assistant') continue;
      day.tokens += (message.usage?.inputTokens ?? 0) + (message.usage?.outputTokens ?? 0);
      day.costUsd += message.costUsd ?? 0;
    }
  }
  return { days: [...days.values()], partial: active.length > read.length };
}
