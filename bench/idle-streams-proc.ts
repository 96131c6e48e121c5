// What bench/idle-streams.bench.ts reads about the API process from outside it, through /proc: its
// resident memory (the goal is stated in RSS) and its open file descriptors (one per socket, so
// they show whether closed streams really let go of their connections). Nothing is asked of the
// process itself, so reading these changes nothing in what is measured.
import fs from 'node:fs';

export interface ProcessMemory {
  /** VmRSS: resident memory now, in bytes. */
  rss: number;
  /** RssAnon: the anonymous part of it (V8's heap, malloc, stacks), in bytes. */
  rssAnon: number;
  /** VmHWM: the most the process has been resident so far, in bytes. */
  peakRss: number;
}

/** A `Name:   1234 kB` line of /proc/<pid>/status, in bytes. */
function statusBytes(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match) throw new Error(`/proc status has no ${name} line`);
  return Number(match[1]) * 1024;
}

export function processMemory(pid: number): ProcessMemory {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: statusBytes(status, 'VmRSS'), rssAnon: statusBytes(status, 'RssAnon'), peakRss: statusBytes(status, 'VmHWM') };
}

/** Open file descriptors of `pid` (sockets, files, pipes). */
export function openDescriptors(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

export const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
