// The files a conversation names, read from storage before the history is converted (toModelMessages
// wants them synchronously). Only this session's media rows are consulted, and only types a model can
// read are loaded; any other file stays a `[file: name]` note.
import type { Db } from '../../store/db.ts';
import { findMediaByKeys } from '../../store/media.ts';
import { readObject, type Storage } from '../../lib/storage.ts';
import { modelInputKind } from '../../lib/media-types.ts';
import type { MessageView } from '../../lib/events.ts';
import { fileUrls, type ResolvedFile } from '../model/history.ts';

export async function conversationFiles(
  deps: { db: Db; storage: Storage },
  sessionId: string,
  messages: readonly MessageView[],
): Promise<(url: string) => ResolvedFile | undefined> {
  const media = await findMediaByKeys(deps.db, sessionId, fileUrls(messages));
  const files = new Map<string, ResolvedFile>();
  await Promise.all(
    media
      .filter((item) => modelInputKind(item.contentType) !== undefined)
      .map(async (item) => {
        const data = await readObject(deps.storage, item.objectKey);
        if (data) files.set(item.key, { data, mediaType: item.contentType });
      }),
  );
  return (url) => files.get(url);
}
