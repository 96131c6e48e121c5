// The `time` tool server: what time it is, anywhere. Models do not know the current time, and
// date arithmetic across zones is where they guess worst.
import { defineBuiltinTool, toolError } from './define.ts';

export const currentTime = defineBuiltinTool<{ timezone?: string }>('time', 'current_time', ({ timezone = 'UTC' }, context) => {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, ...PARTS });
  } catch {
    return toolError(`Unknown time zone "${timezone}". Use an IANA time zone name such as "Europe/Paris" or "UTC".`);
  }
  const now = context.now?.() ?? new Date();
  const zone = format.resolvedOptions().timeZone;
  return {
    output: { iso: now.toISOString(), timezone: zone, local: localIso(format, now), weekday: weekday(zone, now) },
    isError: false,
  };
});

const PARTS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'longOffset',
};

/** `2025-03-30T04:05:06+02:00`: the wall-clock time in the zone, with its offset from UTC. */
function localIso(format: Intl.DateTimeFormat, date: Date): string {
  const parts = format.formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset}`;
}

function weekday(timeZone: string, date: Date): string {
  return new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long' }).format(date);
}
