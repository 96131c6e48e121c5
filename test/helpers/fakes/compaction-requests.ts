// What tests of compaction tell the fakes: text long enough to fill a small window, each piece naming
// the message it belongs to, and whether a request is a compaction's summarising call.

/** `words` pieces `<label>-<n> lorem ipsum` (about five tokens each), so a test can see which messages a request carried. */
export function filler(label: string, words = 60): string {
  return Array.from({ length: words }, (_, index) => `${label}-${index} lorem ipsum`).join(' ');
}

/** Whether a request, on any wire, is a summarising call: its instructions (activities/turn/compaction.ts) open so. */
export function isSummarising(request: { body: unknown }): boolean {
  return JSON.stringify(request.body).includes('You compact a conversation');
}
