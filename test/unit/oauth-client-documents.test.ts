// Which URLs may be a client ID, and which documents describe a client: checked before and after the
// fetch, with no network (api/oauth/client-documents.ts).
import { describe, expect, it } from 'vitest';
import { clientIdProblem, documentClient, freshFor, isDocumentClientId } from '../../api/oauth/client-documents.ts';

describe('a client ID URL', () => {
  it('is https with a path, or http to loopback; never with credentials, a fragment or dot segments', () => {
    expect(clientIdProblem('https://app.example/oauth/client.json')).toBeUndefined();
    expect(clientIdProblem('https://app.example/client?v=2')).toBeUndefined();
    expect(clientIdProblem('http://127.0.0.1:8080/client.json')).toBeUndefined();
    expect(clientIdProblem('http://localhost/client.json')).toBeUndefined();
    expect(clientIdProblem('http://app.example/client.json')).toBe('must be an https URL');
    expect(clientIdProblem('https://app.example')).toBe('must have a path');
    expect(clientIdProblem('https://user:pw@app.example/c.json')).toBe('must not carry credentials');
    expect(clientIdProblem('https://app.example/c.json#x')).toBe('must not have a fragment');
    expect(clientIdProblem('https://app.example/./c.json')).toBe('must not have . or .. segments');
    expect(clientIdProblem('https://app.example/a/..')).toBe('must not have . or .. segments');
    expect(clientIdProblem('not a url')).toBe('is not a URL');
    // Spelled otherwise than its canonical form: percent-encoded dots, backslashes, upper case, a default port.
    expect(clientIdProblem('https://app.example/x/%2e%2e/c.json')).toBe('must be written as https://app.example/c.json');
    expect(clientIdProblem('https://APP.example/c.json')).toBe('must be written as https://app.example/c.json');
    expect(clientIdProblem('https://app.example:443/c.json')).toBe('must be written as https://app.example/c.json');
  });

  it('is told from a registered client ID by its scheme', () => {
    expect(isDocumentClientId('https://app.example/c.json')).toBe(true);
    expect(isDocumentClientId('oac_0123')).toBe(false);
  });
});

describe('a client ID metadata document', () => {
  const id = 'https://app.example/c.json';
  const good = { client_id: id, client_name: 'App', redirect_uris: ['https://app.example/cb'] };

  it('describes a public client that names itself', () => {
    expect(documentClient(id, JSON.stringify(good))).toMatchObject({
      client_id: id,
      client_name: 'App',
      token_endpoint_auth_method: 'none',
    });
  });

  it('holds its redirect URIs to the rules of registered clients', () => {
    const problem = (uris: string[]) =>
      (documentClient(id, JSON.stringify({ ...good, redirect_uris: uris })) as { problem?: string }).problem;
    expect(problem(['http://app.example/cb'])).toBe('http://app.example/cb: plain http is allowed only to localhost; use https');
    expect(problem(['http://127.0.0.1:5000/cb', 'cursor://callback'])).toBeUndefined();
    expect(problem(Array.from({ length: 11 }, (_, index) => `https://app.example/cb${index}`))).toBe('At most 10 redirect URIs');
  });

  it('is served for its Cache-Control max-age, from 5 minutes to an hour', () => {
    expect(freshFor(undefined)).toBe(3_600_000);
    expect(freshFor('public, max-age=600')).toBe(600_000);
    expect(freshFor('max-age=5')).toBe(300_000);
    expect(freshFor('max-age=999999')).toBe(3_600_000);
    expect(freshFor('no-store')).toBe(300_000);
  });

  it('is refused with why otherwise', () => {
    const problem = (document: unknown) => (documentClient(id, JSON.stringify(document)) as { problem?: string }).problem;
    expect(problem([good])).toBe('the document is not a JSON object');
    expect(problem({ ...good, client_id: 'https://app.example/other.json' })).toBe('the document\'s "client_id" is not its own URL');
    expect(problem({ ...good, client_secret: 's' })).toBe('a document must not carry a secret');
    expect(problem({ ...good, token_endpoint_auth_method: 'private_key_jwt' })).toMatch(/is not offered/);
    expect(problem({ client_id: id })).toMatch(/^the document is not client metadata/);
    expect((documentClient(id, '{') as { problem: string }).problem).toBe('the document is not JSON');
  });
});
