// The official MCP SDK's client side of OAuth, loaded on first use like the rest of the SDK
// (lib/mcp/sdk.ts): only processes that sign in to a server pay for its schemas.
import type * as AuthModule from '@modelcontextprotocol/sdk/client/auth.js';
import type * as AuthUtilsModule from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import type * as ErrorsModule from '@modelcontextprotocol/sdk/server/auth/errors.js';

export interface McpAuthSdk {
  extractWWWAuthenticateParams: typeof AuthModule.extractWWWAuthenticateParams;
  discoverOAuthServerInfo: typeof AuthModule.discoverOAuthServerInfo;
  registerClient: typeof AuthModule.registerClient;
  startAuthorization: typeof AuthModule.startAuthorization;
  exchangeAuthorization: typeof AuthModule.exchangeAuthorization;
  refreshAuthorization: typeof AuthModule.refreshAuthorization;
  selectClientAuthMethod: typeof AuthModule.selectClientAuthMethod;
  checkResourceAllowed: typeof AuthUtilsModule.checkResourceAllowed;
  resourceUrlFromServerUrl: typeof AuthUtilsModule.resourceUrlFromServerUrl;
  OAuthError: typeof ErrorsModule.OAuthError;
}

let loading: Promise<McpAuthSdk> | undefined;

export function mcpAuthSdk(): Promise<McpAuthSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/shared/auth-utils.js'),
    import('@modelcontextprotocol/sdk/server/auth/errors.js'),
  ]).then(([auth, utils, errors]) => ({
    extractWWWAuthenticateParams: auth.extractWWWAuthenticateParams,
    discoverOAuthServerInfo: auth.discoverOAuthServerInfo,
    registerClient: auth.registerClient,
    startAuthorization: auth.startAuthorization,
    exchangeAuthorization: auth.exchangeAuthorization,
    refreshAuthorization: auth.refreshAuthorization,
    selectClientAuthMethod: auth.selectClientAuthMethod,
    checkResourceAllowed: utils.checkResourceAllowed,
    resourceUrlFromServerUrl: utils.resourceUrlFromServerUrl,
    OAuthError: errors.OAuthError,
  }));
  return loading;
}
