// Uploaded media: the names we give files, the keys clients use for them, and what each type may
// become (a model input, an inline or a downloaded response). Pure functions, no I/O.
import { randomUUID } from 'node:crypto';

/** Longest name part of a media key (`media/<uuid>-<name>`), extension included. */
export const MAX_KEY_NAME_CHARS = 100;
/** Longest filename kept for display (Content-Disposition, message parts). */
export const MAX_DISPLAY_NAME_CHARS = 255;
/** A text file larger than this is refused as model input: it would not fit a context window. */
export const MAX_TEXT_FILE_BYTES = 512 * 1024;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const KEY_NAME = `[A-Za-z0-9_-][A-Za-z0-9._-]{0,${MAX_KEY_NAME_CHARS - 1}}`;
const MEDIA_KEY = new RegExp(`^media/(${UUID})-(${KEY_NAME})$`);

// C0 and C1 control characters (NUL included) and the Unicode line/paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** The last segment of a client's path, either slash, without control characters. */
function lastSegment(raw: string): string {
  const segments = raw.replace(CONTROL, '').split(/[/\\]/);
  const last = (segments.filter((segment) => segment.trim() !== '').at(-1) ?? '').trim();
  return last === '.' || last === '..' ? '' : last;
}

/**
 * A client's filename reduced to a safe basename for a key: the last path segment, ASCII letters,
 * digits, `.`, `_` and `-` only (anything else becomes `_`), no leading dots, no `..`, at most
 * MAX_KEY_NAME_CHARS with its extension kept; `file` (plus the extension) when nothing is left.
 */
export function safeBasename(raw: string | undefined): string {
  const ascii = lastSegment(raw ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/_{2,}/g, '_');
  const dot = ascii.lastIndexOf('.');
  const extension = dot > 0 && /^\.[A-Za-z0-9]{1,15}$/.test(ascii.slice(dot)) ? ascii.slice(dot) : '';
  const stem = (extension ? ascii.slice(0, dot) : ascii)
    .replace(/^[._]+/, '')
    .slice(0, MAX_KEY_NAME_CHARS - extension.length)
    .replace(/[._]+$/, '');
  return `${stem || 'file'}${extension}`;
}

/** The client's filename as shown to people: the last path segment, no control characters, capped. */
export function displayFilename(raw: string | undefined, fallback: string): string {
  const name = [...lastSegment(raw ?? '')].slice(0, MAX_DISPLAY_NAME_CHARS).join('');
  return name || fallback;
}

export function newMediaKey(filename: string | undefined): string {
  return `media/${randomUUID()}-${safeBasename(filename)}`;
}

/** The safe name at the end of a media key. */
export function mediaKeyName(key: string): string {
  return MEDIA_KEY.exec(key)?.[2] ?? 'file';
}

/** A media key as a client may name it; anything else (other prefixes, `..`, `%`, `\`, NUL...) is not one. */
export function isMediaKey(value: string): boolean {
  return MEDIA_KEY.test(value);
}

const TOKEN = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/;

/** The type a client declared for its upload, lower case and parameterless; octet-stream if unusable. */
export function normalizeMediaType(declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  return TOKEN.test(type) ? type : 'application/octet-stream';
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const TEXT_APPLICATION_TYPES = new Set(['application/json']);

export type ModelInputKind = 'image' | 'text' | 'pdf';

/**
 * How a file reaches a model: images as image parts, text as text, PDFs as file parts (every
 * provider the service offers takes them); undefined for a type no model here can read.
 */
export function modelInputKind(mediaType: string): ModelInputKind | undefined {
  if (IMAGE_TYPES.has(mediaType)) return 'image';
  if (isTextMediaType(mediaType)) return 'text';
  if (mediaType === 'application/pdf') return 'pdf';
  return undefined;
}

export function isTextMediaType(mediaType: string): boolean {
  return mediaType.startsWith('text/') || TEXT_APPLICATION_TYPES.has(mediaType);
}

// Shown in the browser only when the type cannot run script; everything else (text/html,
// image/svg+xml, XML, JavaScript, unknown types) is downloaded as an attachment.
const INLINE_TYPES = new Set([...IMAGE_TYPES, 'image/avif', 'image/bmp', 'text/plain', 'text/csv', 'application/json', 'application/pdf']);

export function isInlineSafe(mediaType: string): boolean {
  return INLINE_TYPES.has(mediaType) || mediaType.startsWith('audio/') || mediaType.startsWith('video/');
}

/** `inline` or `attachment`, with an ASCII fallback filename and the exact one as RFC 5987 `filename*`. */
export function contentDisposition(mediaType: string, filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${isInlineSafe(mediaType) ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
