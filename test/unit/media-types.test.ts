// Names, keys and types of uploaded media.
import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  displayFilename,
  isMediaKey,
  mediaKeyName,
  modelInputKind,
  newMediaKey,
  normalizeMediaType,
  safeBasename,
} from '../../lib/media-types.ts';

describe('safeBasename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\boot.ini', 'boot.ini'],
    ['C:\\Users\\me\\photo.JPG', 'photo.JPG'],
    ['/absolute/path/x.txt', 'x.txt'],
    ['..', 'file'],
    ['.', 'file'],
    ['', 'file'],
    [undefined, 'file'],
    ['.htaccess', 'htaccess'],
    ['...png', 'png'],
    ['.png', 'png'],
    ['a..b..c.txt', 'a.b.c.txt'],
    ['nul\u0000byte.txt', 'nulbyte.txt'],
    ['line\nbreak\r.txt', 'linebreak.txt'],
    ['spaces and (brackets).md', 'spaces_and_brackets.md'],
    ['résumé.pdf', 'resume.pdf'],
    ['日本語.txt', 'file.txt'],
    ['%2e%2e%2fx', '2e_2e_2fx'],
    ['trailing dots...', 'trailing_dots'],
  ])('%j -> %j', (raw, safe) => {
    expect(safeBasename(raw)).toBe(safe);
  });

  it('caps the name at 100 characters and keeps the extension', () => {
    expect(safeBasename(`${'x'.repeat(300)}.jpeg`)).toBe(`${'x'.repeat(95)}.jpeg`);
    expect(safeBasename('y'.repeat(300))).toBe('y'.repeat(100));
  });

  it('always gives a name a key accepts', () => {
    for (const raw of ['../..', 'a/b/c', '\u0000', '-dash', '_under', 'x'.repeat(500), 'ok.tar.gz', '..\\..\\', '💥.png']) {
      const key = `media/123e4567-e89b-42d3-a456-426614174000-${safeBasename(raw)}`;
      expect(isMediaKey(key), `${raw} -> ${key}`).toBe(true);
    }
  });
});

describe('media keys', () => {
  const good = newMediaKey('chart.png');

  it('a new key has the documented form', () => {
    expect(good).toMatch(/^media\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-chart\.png$/);
    expect(isMediaKey(good)).toBe(true);
    expect(mediaKeyName(good)).toBe('chart.png');
  });

  it.each([
    `media/../${good.slice(6)}`,
    'media/../../master.key',
    `media/%2e%2e/${good.slice(6)}`,
    `media/${good.slice(6)}/..`,
    `media\\${good.slice(6)}`,
    `/${good}`,
    `/etc/passwd`,
    `uploads/${good.slice(6)}`,
    good.slice(6),
    `${good}\u0000.png`,
    `${good}/x`,
    `${good} `,
    'media/123e4567-e89b-42d3-a456-426614174000-',
    'media/123e4567-e89b-42d3-a456-426614174000-.hidden',
    `media/123e4567-e89b-42d3-a456-426614174000-${'x'.repeat(101)}`,
    'media/not-a-uuid-name.txt',
  ])('refuses %j', (key) => {
    expect(isMediaKey(key)).toBe(false);
  });
});

describe('types', () => {
  it('normalizes a declared type', () => {
    expect(normalizeMediaType('Image/PNG')).toBe('image/png');
    expect(normalizeMediaType('text/plain; charset=utf-8')).toBe('text/plain');
    expect(normalizeMediaType(undefined)).toBe('application/octet-stream');
    expect(normalizeMediaType('not a type')).toBe('application/octet-stream');
    expect(normalizeMediaType('text/html\r\nx-evil: 1')).toBe('application/octet-stream');
  });

  it('knows what reaches a model and how', () => {
    expect(['image/png', 'image/jpeg', 'image/gif', 'image/webp'].map(modelInputKind)).toEqual(['image', 'image', 'image', 'image']);
    expect(['text/plain', 'text/markdown', 'text/csv', 'application/json'].map(modelInputKind)).toEqual(['text', 'text', 'text', 'text']);
    expect(modelInputKind('application/pdf')).toBe('pdf');
    expect(['image/svg+xml', 'application/zip', 'application/octet-stream', 'video/mp4'].map(modelInputKind)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('shows safe types inline and downloads the rest, with an RFC 5987 name', () => {
    expect(contentDisposition('image/png', 'a.png')).toBe(`inline; filename="a.png"; filename*=UTF-8''a.png`);
    expect(contentDisposition('text/html', 'page.html')).toMatch(/^attachment; /);
    expect(contentDisposition('image/svg+xml', 'x.svg')).toMatch(/^attachment; /);
    expect(contentDisposition('application/xhtml+xml', 'x.xhtml')).toMatch(/^attachment; /);
    expect(contentDisposition('application/octet-stream', 'x.bin')).toMatch(/^attachment; /);
    expect(contentDisposition('text/plain', 'naïve "quoted"; name%.txt')).toBe(
      `inline; filename="na_ve _quoted__ name_.txt"; filename*=UTF-8''na%C3%AFve%20%22quoted%22%3B%20name%25.txt`,
    );
  });

  it('keeps the display name readable but without paths or control characters', () => {
    expect(displayFilename('C:\\docs\\Ünïcode name.pdf', 'fallback')).toBe('Ünïcode name.pdf');
    expect(displayFilename('a\u0000b\u202e.txt', 'fallback')).toBe('ab\u202e.txt');
    expect(displayFilename('..', 'file')).toBe('file');
    expect(displayFilename('x'.repeat(300), 'f')).toHaveLength(255);
  });
});
