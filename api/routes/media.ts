// Uploads and their download. A key is served only when this session has a media row for it: the
// key is checked against its exact form, then looked up, and storage is reached through the row's
// object key. Nothing a client sends ever becomes a path.
import { pipeline } from 'node:stream/promises';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { findMedia, insertMedia } from '../../store/media.ts';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import { contentDisposition, displayFilename, isMediaKey, mediaKeyName, normalizeMediaType } from '../../lib/media-types.ts';
import type { Storage } from '../../lib/storage.ts';
import { loadOwnedSession, loadWritableSession } from '../sessions/access.ts';
import { createUploader } from '../sessions/upload.ts';

const mediaSchema = {
  type: 'object',
  required: ['url', 'mediaType', 'filename', 'size'],
  properties: {
    url: { type: 'string', description: '`media/<uuid>-<name>`: the key for file parts and for GET /session/<id>/media' },
    mediaType: { type: 'string', description: 'The type the upload declared (application/octet-stream when it declared none)' },
    filename: { type: 'string', description: 'The name the upload gave, without any path' },
    size: { type: 'integer' },
  },
};

export function mediaRoutes(deps: ApiDeps, storage: Storage) {
  const maxBytes = deps.config.limits.uploadBytes;
  const uploader = createUploader(storage, maxBytes);
  return [
    defineRoute({
      method: 'post',
      path: '/session/:id/upload',
      summary: 'Upload a file to a session (multipart/form-data, one file in the part named `file`)',
      description:
        `At most UPLOAD_LIMIT_BYTES (${maxBytes} here; 413 beyond); an empty file, no \`file\` part, or more than one file is a 400. ` +
        'The key keeps a safe form of the filename (ASCII letters, digits, `.`, `_`, `-`; path and control characters dropped, ' +
        'at most 100 characters with the extension kept, `file` when nothing is left).',
      tag: 'media',
      auth: { kind: 'scope', scope: 'sessions:write' },
      body: {
        required: true,
        contentTypes: ['multipart/form-data'],
        documentOnly: true,
        schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } },
      },
      responses: {
        201: { description: 'Stored', schema: mediaSchema },
        404: { description: 'No such session' },
        410: { description: 'The agent of this session was deleted' },
        413: { description: 'The file is larger than the upload limit' },
        415: { description: 'The body is not multipart/form-data' },
      },
      async handle({ req, res, params, principal }) {
        const session = await loadWritableSession(deps.db, principal, params.id!);
        const file = await uploader.receive(req, res);
        if (!file) {
          throw new ValidationError('Send the file as multipart/form-data in a part named "file", with a filename', [
            { path: '/file', message: 'is required' },
          ]);
        }
        try {
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
    defineRoute<unknown, { key: string }>({
      method: 'get',
      path: '/session/:id/media',
      summary: "Download one of this session's uploads, with its original Content-Type",
      description:
        'Answers with `X-Content-Type-Options: nosniff` and `Content-Disposition` (`inline` for images, plain text, JSON, PDF, ' +
        'audio and video; `attachment` for anything that could run script, such as HTML or SVG). Only keys uploaded to (or ' +
        'inherited by a fork of) this session are served.',
      tag: 'media',
      auth: { kind: 'scope', scope: 'read' },
      query: {
        type: 'object',
        additionalProperties: false,
        required: ['key'],
        properties: {
          key: { type: 'string', minLength: 1, maxLength: 400, description: 'The `url` the upload answered: media/<uuid>-<name>' },
        },
      },
      responses: {
        200: { description: 'The file', contentType: 'application/octet-stream', schema: { type: 'string', format: 'binary' } },
        404: { description: 'No such session, or no such upload in it' },
      },
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
