// An https MCP server's sign-in stays on https: metadata that sends any step of it to plain http is refused.
import { expect, test } from 'vitest';
import { refuseDowngrade } from '../../lib/mcp/oauth/discovery.ts';

const secure = {
  authorization_endpoint: 'https://auth.example.com/authorize',
  token_endpoint: 'https://auth.example.com/token',
  registration_endpoint: 'https://auth.example.com/register',
  revocation_endpoint: 'https://auth.example.com/revoke',
};

test('an https server whose sign-in is https throughout passes', () => {
  expect(() => refuseDowngrade('https://mcp.example.com/mcp', 'https://auth.example.com', secure)).not.toThrow();
});

test('each step sent to plain http is refused, naming it', () => {
  for (const endpoint of Object.keys(secure) as Array<keyof typeof secure>) {
    const downgraded = { ...secure, [endpoint]: secure[endpoint].replace('https:', 'http:') };
    expect(() => refuseDowngrade('https://mcp.example.com/mcp', 'https://auth.example.com', downgraded)).toThrow(
      new RegExp(`${endpoint} \\(http://auth\\.example\\.com/.+\\) is not https`),
    );
  }
  expect(() => refuseDowngrade('https://mcp.example.com/mcp', 'http://auth.example.com', secure)).toThrow(/the authorization server/);
});

test('a plain-http server (on an allowed private network) may sign in over http', () => {
  const plain = { authorization_endpoint: 'http://10.0.0.5/authorize', token_endpoint: 'http://10.0.0.5/token' };
  expect(() => refuseDowngrade('http://10.0.0.4/mcp', 'http://10.0.0.5', plain)).not.toThrow();
});
