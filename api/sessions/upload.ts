// Receiving one uploaded file with multer: the part named `file` is streamed straight into storage
// under a fresh key (a temporary file renamed into place when complete), within limits; whatever
// goes wrong leaves nothing stored. Errors become the service's problems (413 for size, 400 else).
import type { Request, Response } from 'express';
import multer from 'multer';
import type { Readable } from 'node:stream';
import type { Storage } from '../../lib/storage.ts';
import { MalformedBodyError, PayloadTooLargeError, type ServiceError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { newMediaKey } from '../../lib/media-types.ts';

const MEDIA_PREFIX = 'media/';

export interface UploadedFile {
  /** What clients name it by: `media/<uuid>-<safe name>`. */
  key: string;
  objectKey: string;
  size: number;
  /** As the client sent them (untrusted). */
  originalname: string;
  mimetype: string;
}

class UploadTooLargeError extends Error {
  override name = 'UploadTooLargeError';
}
class EmptyUploadError extends Error {
  override name = 'EmptyUploadError';
}
/** Storage failed for a reason of its own (disk full...): a 500, not the client's fault. */
class StorageWriteError extends Error {
  override name = 'StorageWriteError';
}

/**
 * The file's bytes, refusing more than `maxBytes` and refusing none at all. Past the limit the part
 * is still read to its end (busboy stops it one byte over) rather than destroyed: multer counts a
 * destroyed part as settled and could answer before storage has removed what it wrote.
 */
async function* checkedSize(source: Readable, maxBytes: number): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) yield chunk;
  }
  if (size > maxBytes) throw new UploadTooLargeError(`The file is larger than ${maxBytes} bytes`);
  if (size === 0) throw new EmptyUploadError('The file is empty');
}

function storageEngine(storage: Storage, maxBytes: number): multer.StorageEngine {
  return {
    _handleFile(_req, file, callback) {
      const key = newMediaKey(file.originalname);
      const objectKey = key.slice(MEDIA_PREFIX.length);
      storage.put(objectKey, checkedSize(file.stream, maxBytes)).then(
        ({ size }) => callback(null, { key, objectKey, size } as Partial<Express.Multer.File>),
        (error: unknown) =>
          callback(isStorageFailure(error) ? new StorageWriteError('The file could not be stored', { cause: error }) : error),
      );
    },
    _removeFile(_req, file, callback) {
      storage.delete((file as unknown as UploadedFile).objectKey).then(() => callback(null), callback);
    },
  };
}

/** A file system call failing (disk full, permissions) is ours; anything else came from the body or its sender. */
function isStorageFailure(error: unknown): boolean {
  const { syscall, code } = error as NodeJS.ErrnoException;
  return typeof syscall === 'string' && code !== 'ECONNRESET' && code !== 'EPIPE';
}

function problemOf(error: unknown, maxBytes: number): ServiceError | undefined {
  const onePart = 'Send exactly one file, in the multipart part named "file"';
  if (error instanceof multer.MulterError) {
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return new PayloadTooLargeError(`The file is larger than the upload limit of ${maxBytes} bytes`);
      case 'LIMIT_FILE_COUNT':
        return new ValidationError(`${onePart}; this request has more than one`, [{ path: '/file', message: 'only one file is accepted' }]);
      case 'LIMIT_UNEXPECTED_FILE':
        return new ValidationError(`${onePart}; this request has a file in "${error.field ?? ''}"`, [
          { path: `/${error.field ?? ''}`, message: 'unexpected file part' },
        ]);
      default:
        return new ValidationError(`The multipart body has too many or too large parts (${error.code}). ${onePart}`);
    }
  }
  if (error instanceof UploadTooLargeError)
    return new PayloadTooLargeError(`The file is larger than the upload limit of ${maxBytes} bytes`);
  if (error instanceof EmptyUploadError) return new ValidationError('The file is empty', [{ path: '/file', message: 'must not be empty' }]);
  if (error instanceof StorageWriteError) return undefined;
  // Anything else came from parsing the body (busboy: a malformed part, a missing boundary...).
  return new MalformedBodyError(`The multipart body could not be read: ${(error as Error).message}`);
}

export interface Uploader {
  /** Receives the request's file part; undefined when the body has none. Throws the service's errors. */
  receive(req: Request, res: Response): Promise<UploadedFile | undefined>;
}

export function createUploader(storage: Storage, maxBytes: number): Uploader {
  const middleware = multer({
    storage: storageEngine(storage, maxBytes),
    limits: { fileSize: maxBytes, files: 1, fields: 4, parts: 5, fieldSize: 1024, fieldNameSize: 100, headerPairs: 20 },
    // Browsers send UTF-8 filenames; multer's default reads them as Latin-1.
    defParamCharset: 'utf8',
    // The whole name reaches safeBasename, which handles paths itself: busboy's basename would turn
    // `..` into an empty name, and multer drops a part without a name.
    preservePath: true,
  } as multer.Options).single('file');
  return {
    async receive(req, res) {
      await new Promise<void>((resolve, reject) => {
        middleware(req, res, (error: unknown) => {
          if (!error) return resolve();
          const problem = problemOf(error, maxBytes);
          reject(problem ?? error);
        });
      });
      return req.file as unknown as UploadedFile | undefined;
    },
  };
}
