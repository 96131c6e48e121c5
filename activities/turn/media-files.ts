// The files a conversation names, read from storage before the history is converted (toModelMessages
// wants them synchronously). Only this session's media rows are consulted, and only types a model can
// read are loaded; any other file stays a `[file: name]` note. One step loads at most `limitBytes`
// (TURN_FILE_BYTES_LIMIT), newest files first: sends are refused at that limit already, so older files
// become notes only when the limit was lowered after they were sent. Reads go through the worker's
// kept files (turn-files.ts), so a file is read once per turn while the worker has room to keep it.
import type { Db } from '../../store/db.ts';
import { findMediaByKeys, type Media } from '../../store/media.ts';
import { readObject, type Storage } from '../../lib/storage.ts';
import { modelInputKind } from '../../lib/media-types.ts';
import type { MessageView } from '../../contract/events.ts';
import { fileUrls, type ResolvedFile } from '../model/history.ts';
import type { TurnFiles } from './turn-files.ts';

export interface ConversationFilesOptions {
  limitBytes: number;
  files: TurnFiles;
  turnKey: string;
}

export async function conversationFiles(
  deps: { db: Db; storage: Storage },
  sessionId: string,
  messages: readonly MessageView[],
  options: ConversationFilesOptions,
): Promise<(url: string) => ResolvedFile | undefined> {
  // The latest message first, so that the files named last are the ones kept within the limit.
  const urls = fileUrls([...messages].reverse());
  const media = await findMediaByKeys(deps.db, sessionId, urls);
  const chosen = newestWithin(
    urls,
    media.filter((item) => modelInputKind(item.contentType) !== undefined),
    options.limitBytes,
  );
  const bytes = await options.files.read(
    options.turnKey,
    chosen.map((item) => ({ objectKey: item.objectKey, size: item.size })),
    (objectKey) => readObject(deps.storage, objectKey),
  );
  const files = new Map<string, ResolvedFile>();
  for (const item of chosen) {
    const data = bytes.get(item.objectKey);
    if (data) files.set(item.key, { data, mediaType: item.contentType });
  }
  return (url) => files.get(url);
}

/** The media to load, taken in the order of `newestFirst` as long as their sizes fit in `limitBytes` together. */
export function newestWithin(newestFirst: readonly string[], media: readonly Media[], limitBytes: number): Media[] {
  const byKey = new Map(media.map((item) => [item.key, item]));
  const chosen: Media[] = [];
  let total = 0;
  for (const url of newestFirst) {
    const item = byKey.get(url);
    if (!item || total + item.size > limitBytes) continue;
    total += item.size;
    chosen.push(item);
  }
  return chosen;
}
