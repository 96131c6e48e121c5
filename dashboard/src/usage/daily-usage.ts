// Usage per UTC day for the charts: GET /usage sums each agent's replies per day (days without a
// reply are absent); the chart wants every day of the window, oldest first, summed over the agents.
import type { Usage } from '@agent-service/sdk';

export const DAYS = 14;

export interface DayUsage {
  /** YYYY-MM-DD, UTC. */
  day: string;
  tokens: number;
  costUsd: number;
}

export function dailySeries(usage: Usage, days = DAYS): DayUsage[] {
  const series = new Map<string, DayUsage>();
  const first = Date.parse(usage.since);
  for (let index = 0; index < days; index++) {
    const day = new Date(first + index * 86_400_000).toISOString().slice(0, 10);
    series.set(day, { day, tokens: 0, costUsd: 0 });
  }
  for (const row of usage.daily) {
    const day = series.get(row.day);
    if (!day) continue;
    day.tokens += row.inputTokens + row.outputTokens;
    day.costUsd += row.costUsd;
  }
  return [...series.values()];
}
