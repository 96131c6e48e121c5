// File parts of a send: each must name a file uploaded to this session, of a type a model can read.
// The stored part carries the uploaded type and name, whatever the client wrote, so the model step
// never trusts a client's mediaType. Every model step is sent every file of the conversation, so the
// files of the whole conversation (each counted once) may come to at most TURN_FILE_BYTES_LIMIT: a
// send taking them past it is refused here, before anything is stored.
import type { Db } from '../../store/db.ts';
import { conversationMedia, findMediaByKeys, type Media } from '../../store/media.ts';
import type { MessagePart } from '../../contract/events.ts';
import { type FieldError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { isMediaKey, MAX_TEXT_FILE_BYTES, modelInputKind, normalizeMediaType } from '../../lib/media-types.ts';

const READABLE = 'images (image/png, image/jpeg, image/gif, image/webp), text (text/*, application/json) or PDF (application/pdf)';

/** `limitBytes`: the most bytes of files the conversation may hold once this send is in it. */
export async function checkFileParts(db: Db, sessionId: string, parts: MessagePart[], limitBytes: number): Promise<MessagePart[]> {
  const files = parts.flatMap((part) => (part.type === 'file' ? [part] : []));
  if (files.length === 0) return parts;
  const media = new Map(
    (await findMediaByKeys(db, sessionId, files.map((file) => file.url).filter(isMediaKey))).map((item) => [item.key, item]),
  );
  const errors: FieldError[] = [];
  const checked = parts.map((part, index): MessagePart => {
    if (part.type !== 'file') return part;
    const fail = (field: string, message: string): MessagePart => {
      errors.push({ path: `/parts/${index}/${field}`, message });
      return part;
    };
    const uploaded = media.get(part.url);
    if (!uploaded) return fail('url', 'must be a media key returned by POST /session/<id>/upload for this session');
    if (part.mediaType !== undefined && normalizeMediaType(part.mediaType) !== uploaded.contentType) {
      return fail('mediaType', `does not match the uploaded file's type (${uploaded.contentType})`);
    }
    const kind = modelInputKind(uploaded.contentType);
    if (!kind) return fail('url', `is a ${uploaded.contentType} file, which models here cannot read; send ${READABLE}`);
    if (kind === 'text' && uploaded.size > MAX_TEXT_FILE_BYTES) {
      return fail('url', `is a text file of ${uploaded.size} bytes; text files sent to a model may have at most ${MAX_TEXT_FILE_BYTES}`);
    }
    return { type: 'file', url: part.url, mediaType: uploaded.contentType, filename: part.filename ?? uploaded.filename };
  });
  if (errors.length > 0) {
    throw new ValidationError(`The request body is not valid: ${errors[0]!.path} ${errors[0]!.message}`, errors);
  }
  await checkConversationBytes(db, sessionId, [...media.values()], limitBytes);
  return checked;
}

async function checkConversationBytes(db: Db, sessionId: string, sent: Media[], limitBytes: number): Promise<void> {
  const held = new Map((await conversationMedia(db, sessionId)).filter(readable).map((item) => [item.key, item.size]));
  const before = [...held.values()].reduce((sum, size) => sum + size, 0);
  for (const item of sent) held.set(item.key, item.size);
  const after = [...held.values()].reduce((sum, size) => sum + size, 0);
  if (after <= limitBytes) return;
  const message =
    `would bring the files of this conversation to ${after} bytes; a model step may be sent at most ${limitBytes} ` +
    `(TURN_FILE_BYTES_LIMIT), and the conversation already holds ${before}. Send fewer or smaller files, or start a new session`;
  throw new ValidationError(`The request body is not valid: /parts ${message}`, [{ path: '/parts', message }]);
}

const readable = (item: Media) => modelInputKind(item.contentType) !== undefined;
