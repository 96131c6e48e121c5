// What `sessions.upload` accepts and how it becomes the one file part of a multipart body: a Blob
// (a File keeps its name), bytes, a web ReadableStream, or (in Node only) a path to a file.
import { AgentServiceError } from './errors.ts';

export type UploadSource = Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | string;

export interface UploadNaming {
  filename?: string;
  mediaType?: string;
}

export async function toBlob(source: UploadSource, options: UploadNaming): Promise<{ blob: Blob; filename: string }> {
  if (typeof source === 'string') {
    // Node only: the platform's own file reading, loaded only when a path is given so browsers never see it.
    const nodeFs = 'node:fs';
    const fs = (await import(/* @vite-ignore */ nodeFs)) as { openAsBlob?: (path: string, options?: { type?: string }) => Promise<Blob> };
    if (!fs.openAsBlob) throw new AgentServiceError('Uploading from a path needs Node 19.8 or later');
    const blob = await fs.openAsBlob(source, { type: options.mediaType ?? mediaTypeOf(source) });
    return { blob, filename: options.filename ?? source.split(/[\\/]/).pop() ?? 'file' };
  }
  if (source instanceof Blob) {
    const named = (source as Blob & { name?: string }).name;
    const blob = options.mediaType ? new Blob([source], { type: options.mediaType }) : source;
    return { blob, filename: options.filename ?? named ?? 'file' };
  }
  if (source instanceof ReadableStream) {
    // Read to the end first: browsers stream a request body only over HTTP/2 (and fetch then needs
    // `duplex`), while a multipart body of known length works everywhere. The service takes at most
    // UPLOAD_LIMIT_BYTES (25 MiB by default), so what is held is bounded by what it would accept.
    const read = await new Response(source).blob();
    const type = options.mediaType ?? (options.filename ? mediaTypeOf(options.filename) : 'application/octet-stream');
    return { blob: new Blob([read], { type }), filename: options.filename ?? 'file' };
  }
  const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
  return {
    blob: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: options.mediaType ?? 'application/octet-stream' }),
    filename: options.filename ?? 'file',
  };
}

/** The type the service accepts in messages, from a file name's extension. */
function mediaTypeOf(name: string): string {
  const extension = name.split('.').pop()?.toLowerCase() ?? '';
  const types: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    pdf: 'application/pdf',
    txt: 'text/plain',
    md: 'text/markdown',
    csv: 'text/csv',
    json: 'application/json',
  };
  return types[extension] ?? 'application/octet-stream';
}
