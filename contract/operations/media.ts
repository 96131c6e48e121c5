// Files uploaded to a session, and their download.
import { defineOperation, type ResponseOf, type Sent } from './operation.ts';

export const MEDIA_SCHEMA = {
  type: 'object',
  required: ['url', 'mediaType', 'filename', 'size'],
  properties: {
    url: { type: 'string', description: '`media/<uuid>-<name>`: the key for file parts and for GET /session/<id>/media' },
    mediaType: { type: 'string', description: 'The type the upload declared (application/octet-stream when it declared none)' },
    filename: { type: 'string', description: 'The name the upload gave, without any path' },
    size: { type: 'integer' },
  },
} as const;

export const uploadMedia = defineOperation({
  id: 'uploadMedia',
  method: 'post',
  path: '/session/{id}/upload',
  summary: 'Upload a file to a session (multipart/form-data, one file in the part named `file`)',
  description:
    'At most UPLOAD_LIMIT_BYTES (25 MiB unless configured; 413 beyond); an empty file, no `file` part, or more than one file ' +
    'is a 400. The key keeps a safe form of the filename (ASCII letters, digits, `.`, `_`, `-`; path and control characters ' +
    'dropped, at most 100 characters with the extension kept, `file` when nothing is left).',
  tag: 'media',
  auth: { kind: 'scope', scope: 'sessions:write' },
  body: {
    required: true,
    contentTypes: ['multipart/form-data'],
    schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } },
  },
  responses: {
    201: { description: 'Stored', schema: MEDIA_SCHEMA },
    404: { description: 'No such session' },
    410: { description: 'The agent of this session was deleted' },
    413: { description: 'The file is larger than the upload limit' },
    415: { description: 'The body is not multipart/form-data' },
  },
});

export const downloadMedia = defineOperation({
  id: 'downloadMedia',
  method: 'get',
  path: '/session/{id}/media',
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
    200: { description: 'The file, with the type it was uploaded with', contentType: '*/*', schema: { type: 'string', format: 'binary' } },
    404: { description: 'No such session, or no such upload in it' },
  },
});

export type Media = ResponseOf<typeof uploadMedia, 201>;
export type DownloadMediaQuery = Sent<typeof downloadMedia.query>;
