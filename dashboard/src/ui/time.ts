// Times as people read them: "in 3 h 20 min", "5 min ago", and a full local date for a title.

function span(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

/** How long until `iso`, or that it has passed. */
export function timeLeft(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  return ms > 0 ? `${span(ms)} left` : 'expired';
}

export function ago(iso: string, now = Date.now()): string {
  const ms = now - Date.parse(iso);
  return ms < 60_000 ? 'just now' : `${span(ms)} ago`;
}

export function fullDate(iso: string): string {
  return new Date(iso).toLocaleString();
}

export function usd(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return '—';
  return cost < 0.01 && cost > 0 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}
