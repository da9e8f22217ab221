import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  CustomOAuthError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  type OAuthError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  authenticateAccessToken,
  authorizationCodeChallenge,
  exchangeAuthorizationCode,
  exchangeRefreshToken,
  getClient,
  OAuthFailure,
  oauthSecret,
  registerClient,
  revokeToken,
  type IssuedTokens,
  type RegisteredClient,
} from '../../core/auth/oauth.js';
import { sign } from '../../core/auth/secrets.js';
import type { Ctx } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { renderConsent } from './consent.js';

/**
 * Client secrets are derived from the client id, never stored, so idempotent registration
 * can hand a confidential client the same secret again.
 */
const clientSecret = (ctx: Ctx, clientId: string): string => sign(oauthSecret(ctx), 'client-secret', clientId);

function toSdkClient(ctx: Ctx, client: RegisteredClient): OAuthClientInformationFull {
  const confidential = client.metadata.token_endpoint_auth_method !== 'none';
  return {
    ...client.metadata,
    client_id: client.id,
    client_id_issued_at: client.issuedAt,
    ...(confidential ? { client_secret: clientSecret(ctx, client.id), client_secret_expires_at: 0 } : {}),
  };
}

/** Our OAuth failures as the SDK's errors, which its handlers turn into RFC 6749 responses. */
function toSdkError(err: unknown): unknown {
  if (!(err instanceof OAuthFailure)) return err;
  const map: Record<OAuthFailure['code'], (m: string) => OAuthError> = {
    invalid_grant: (m) => new InvalidGrantError(m),
    invalid_request: (m) => new InvalidRequestError(m),
    invalid_client_metadata: (m) => new InvalidClientMetadataError(m),
    invalid_redirect_uri: (m) => new CustomOAuthError('invalid_redirect_uri', m),
  };
  return map[err.code](err.message);
}

function sdkCall<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(toSdkError(err));
  }
}

const toTokens = (t: IssuedTokens): OAuthTokens => ({
  access_token: t.accessToken,
  token_type: 'Bearer',
  expires_in: t.expiresIn,
  refresh_token: t.refreshToken,
  ...(t.scopes.length ? { scope: t.scopes.join(' ') } : {}),
});

/**
 * The SDK-facing authorization server over our own tables. The SDK's handlers parse and
 * route; every decision (client policy, PKCE, single-use codes, rotation, key checks) is made
 * by the core verbs, so an SDK upgrade only touches this folder.
 */
export class OutreachOAuthProvider implements OAuthServerProvider {
  /** PKCE is verified by exchangeAuthorizationCode itself, so a wrong verifier also spends the code. */
  readonly skipLocalPkceValidation = true;
  readonly clientsStore: OAuthRegisteredClientsStore;

  constructor(
    private readonly ctx: Ctx,
    /** This server's origin, e.g. http://127.0.0.1:3000: tokens may name only its resources. */
    private readonly origin: string,
  ) {
    this.clientsStore = {
      getClient: (clientId) => {
        const client = getClient(ctx, clientId);
        return client ? toSdkClient(ctx, client) : undefined;
      },
      registerClient: (info) =>
        sdkCall(() => {
          const { client_secret: _s, client_secret_expires_at: _e, client_id: _i, client_id_issued_at: _t, ...metadata } = info as OAuthClientInformationFull;
          return toSdkClient(ctx, registerClient(ctx, metadata));
        }),
    };
  }

  /** RFC 8707: a client may ask only for a token for this server's MCP endpoints. */
  private checkResource(resource: URL | undefined): void {
    if (!resource) return;
    if (resource.origin !== this.origin || !['/', '/mcp'].includes(resource.pathname)) {
      throw new InvalidTargetError(`This server issues tokens only for ${this.origin}/mcp (or ${this.origin}/), not ${resource.href}.`);
    }
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.checkResource(params.resource);
    renderConsent(this.ctx, res, {
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      state: params.state ?? null,
      scopes: params.scopes ?? [],
      resource: params.resource?.href ?? null,
    });
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    return sdkCall(() => authorizationCodeChallenge(this.ctx, client.client_id, authorizationCode));
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return sdkCall(() => {
      this.checkResource(resource);
      if (codeVerifier === undefined) throw new OAuthFailure('invalid_request', 'code_verifier is required (PKCE S256).');
      return toTokens(exchangeAuthorizationCode(this.ctx, { clientId: client.client_id, code: authorizationCode, codeVerifier, redirectUri }));
    });
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    return sdkCall(() => {
      this.checkResource(resource);
      return toTokens(exchangeRefreshToken(this.ctx, { clientId: client.client_id, refreshToken }));
    });
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    try {
      const info = authenticateAccessToken(this.ctx, token);
      return {
        token,
        clientId: info.clientId,
        scopes: info.scopes,
        expiresAt: Math.floor(info.expiresAt / 1000),
        ...(info.resource ? { resource: new URL(info.resource) } : {}),
        extra: { keyId: info.keyId },
      };
    } catch (err) {
      if (err instanceof ApiError) throw new CustomOAuthError('invalid_token', err.message);
      throw err;
    }
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return sdkCall(() => revokeToken(this.ctx, client.client_id, request.token));
  }
}
