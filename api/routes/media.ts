// Uploads and their download. A key is served only when this session has a media row for it: the
// key is checked against its exact form, then looked up, and storage is reached through the row's
// object key. Nothing a client sends ever becomes a path.
import { pipeline } from 'node:stream/promises';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { findMedia, insertMedia } from '../../store/media.ts';
import { storedBytes } from '../../store/user-holdings.ts';
import { refusePastStorageLimit } from '../user-limits.ts';
import { NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { contentDisposition, displayFilename, isMediaKey, mediaKeyName, normalizeMediaType } from '../../lib/media-types.ts';
import type { Storage } from '../../lib/storage.ts';
import { loadOwnedSession, loadWritableSession } from '../sessions/access.ts';
import { createUploader } from '../sessions/upload.ts';

export function mediaRoutes(deps: ApiDeps, storage: Storage) {
  const maxBytes = deps.config.limits.uploadBytes;
  const uploader = createUploader(storage, maxBytes);
  return [
    defineRoute(OPERATIONS.uploadMedia, {
      bodyCheckedByHandler: true,
      async handle({ req, res, params, principal }) {
        const session = await loadWritableSession(deps.db, principal, params.id!);
        const { storedBytesPerUser } = deps.config.limits;
        // Refused before a byte is read when the user is full already; checked with the file's size once it is in.
        refusePastStorageLimit(await storedBytes(deps.db, principal!.userId), 0, storedBytesPerUser - 1);
        const file = await uploader.receive(req, res);
        if (!file) {
          throw new ValidationError('Send the file as multipart/form-data in a part named "file", with a filename', [
            { path: '/file', message: 'is required' },
          ]);
        }
        try {
          refusePastStorageLimit(await storedBytes(deps.db, principal!.userId), file.size, storedBytesPerUser);
          const media = await insertMedia(deps.db, {
            sessionId: session.id,
            key: file.key,
            objectKey: file.objectKey,
            contentType: normalizeMediaType(file.mimetype),
            size: file.size,
            filename: displayFilename(file.originalname, mediaKeyName(file.key)),
          });
          return { status: 201, body: { url: media.key, mediaType: media.contentType, filename: media.filename, size: media.size } };
        } catch (error) {
          await storage.delete(file.objectKey).catch(() => undefined);
          throw error;
        }
      },
    }),
    defineRoute(OPERATIONS.downloadMedia, {
      async handle({ req, res, params, query, principal }) {
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        if (!isMediaKey(query.key)) {
          throw new ValidationError('The key must be a media key returned by an upload: media/<uuid>-<name>', [
            { path: '/query/key', message: 'is not a media key' },
          ]);
        }
        const media = await findMedia(deps.db, session.id, query.key);
        if (!media) throw new NotFoundError('This session has no upload with that key');
        const object = await storage.get(media.objectKey);
        if (!object) {
          req.log.warn({ key: media.key, objectKey: media.objectKey }, 'media row without its stored object');
          throw new NotFoundError('The file of this upload is missing from storage');
        }
        // writeHead, not res.set: Express would add a charset to the type the upload declared.
        res.writeHead(200, {
          'content-type': media.contentType,
          'content-length': String(object.size),
          'content-disposition': contentDisposition(media.contentType, media.filename),
          'x-content-type-options': 'nosniff',
          'cache-control': 'private, max-age=3600',
          // A browser that renders it anyway runs nothing (PDF viewers refuse a sandbox, and PDFs are inline-safe).
          ...(media.contentType === 'application/pdf' ? {} : { 'content-security-policy': "default-src 'none'; sandbox" }),
        });
        await pipeline(object.body, res).catch((error: unknown) => req.log.debug({ err: error }, 'media download ended early'));
        return undefined;
      },
    }),
  ];
}
