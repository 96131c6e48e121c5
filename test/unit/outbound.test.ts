// The outbound guard: refused addresses in every spelling, host names checked after resolution (on
// the socket's own lookup), the allow list, and no redirect ever followed. Receivers are real HTTP
// servers on loopback, which is exactly what the guard refuses unless allowed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createOutboundClient, OutboundAddressRefusedError, OutboundTimeoutError, OutboundUrlError } from '../../lib/outbound.ts';
import { refusedRange } from '../../lib/refused-addresses.ts';

let server: Server;
let port: number;
let hits: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
    else if (req.url === '/slow') setTimeout(() => res.end('late'), 2_000);
    else res.writeHead(200, { 'x-answer': 'yes' }).end('x'.repeat(5_000));
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const guarded = createOutboundClient({ allowCidrs: [] });
const allowed = createOutboundClient({ allowCidrs: ['127.0.0.0/8'] });

describe('literal addresses', () => {
  test.each([
    '127.0.0.1',
    '[::1]',
    '169.254.169.254',
    '10.0.0.1',
    '0.0.0.0',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '2130706433',
    '0x7f.1',
    '0x7f000001',
    '017700000001',
    '127.1',
    '[::]',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '192.0.0.192',
    '224.0.0.1',
    '255.255.255.255',
    '[fd00:ec2::254]',
    '[fe80::1]',
    '[ff02::1]',
    '[64:ff9b::7f00:1]',
    '[2002:7f00:1::]',
    '[::7f00:1]',
  ])('http://%s/ is refused before any connection', (host) => {
    expect(() => guarded.checkUrl(`http://${host}/hook`)).toThrow(OutboundAddressRefusedError);
  });

  test.each(['8.8.8.8', '1.1.1.1', '[2606:4700:4700::1111]', 'example.com'])('http://%s/ passes the literal check', (host) => {
    expect(guarded.checkUrl(`https://${host}/hook`).protocol).toBe('https:');
  });

  test('names the range it refused', () => {
    expect(refusedRange('169.254.169.254')).toMatch(/link-local/);
    expect(refusedRange('::ffff:8.8.8.8')).toMatch(/IPv4-mapped/);
    expect(refusedRange('8.8.8.8')).toBeUndefined();
    expect(refusedRange('not-an-ip')).toBeUndefined();
  });

  test('refuses what is not an http(s) URL, or carries credentials', () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'example.com/hook', 'https://user:pw@example.com/']) {
      expect(() => guarded.checkUrl(url), url).toThrow(OutboundUrlError);
    }
  });

  test('the allow list lifts a refusal for its ranges only', () => {
    expect(allowed.checkUrl('http://127.0.0.1/').hostname).toBe('127.0.0.1');
    expect(allowed.checkUrl('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
    expect(() => allowed.checkUrl('http://10.0.0.1/')).toThrow(OutboundAddressRefusedError);
    expect(() => createOutboundClient({ allowCidrs: ['10.0.0.0/33'] })).toThrow(/CIDR/);
  });
});

describe('requests', () => {
  test('a listener on loopback receives nothing unless allowed', async () => {
    hits = [];
    await expect(guarded.request(`http://127.0.0.1:${port}/direct`, { timeoutMs: 2_000 })).rejects.toThrow(OutboundAddressRefusedError);
    await expect(guarded.request(`http://2130706433:${port}/decimal`, { timeoutMs: 2_000 })).rejects.toThrow(OutboundAddressRefusedError);
    expect(hits).toEqual([]);
    const answer = await allowed.request(`http://127.0.0.1:${port}/direct`, { timeoutMs: 2_000 });
    expect(answer.status).toBe(200);
    expect(hits).toEqual(['/direct']);
  });

  test('a host name resolving to loopback is refused after resolution, unless allowed', async () => {
    hits = [];
    const refused = guarded.request(`http://localhost:${port}/by-name`, { method: 'POST', body: '{}', timeoutMs: 2_000 });
    await expect(refused).rejects.toThrow(OutboundAddressRefusedError);
    await expect(refused).rejects.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    expect(hits).toEqual([]);
    // localhost may resolve to ::1 first, where nothing listens; the guard let it through either way.
    const answered = await allowed
      .request(`http://localhost:${port}/by-name`, { timeoutMs: 2_000 })
      .catch((error: NodeJS.ErrnoException) => error.code);
    expect(answered === 'ECONNREFUSED' || (typeof answered === 'object' && answered.status === 200)).toBe(true);
  });

  test('a 302 is answered as it is, never followed', async () => {
    hits = [];
    const answer = await allowed.request(`http://127.0.0.1:${port}/redirect`, { method: 'POST', body: '{}', timeoutMs: 2_000 });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toMatch(/\/target$/);
    expect(hits).toEqual(['/redirect']);
  });

  test('keeps a bounded snippet of the body and times out whole exchanges', async () => {
    const answer = await allowed.request(`http://127.0.0.1:${port}/big`, { timeoutMs: 2_000, maxBodyBytes: 100 });
    expect(answer.bodySnippet).toBe('x'.repeat(100));
    expect(answer.headers['x-answer']).toBe('yes');
    await expect(allowed.request(`http://127.0.0.1:${port}/slow`, { timeoutMs: 200 })).rejects.toThrow(OutboundTimeoutError);
  });
});
