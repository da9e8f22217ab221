import express, { type Request, type RequestHandler, type Router } from 'express';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { Ctx } from '../../core/context.js';
import { SERVER_NAME } from '../../version.js';
import { baseUrl } from '../request.js';
import { CONSENT_PATH, consentSubmitHandler } from './consent.js';
import { perAddressLimit } from './limit.js';
import { OutreachOAuthProvider } from './provider.js';

/** Where a client finds how to authenticate (RFC 9728), named in every 401 from the MCP endpoints. */
export const protectedResourceMetadataUrl = (req: Request): string =>
  `${baseUrl(req)}/.well-known/oauth-protected-resource${req.path.startsWith('/mcp') ? '/mcp' : ''}`;

/** The OAuth discovery documents, for the overview and the docs. */
export const oauthUrls = (origin: string) => ({
  protectedResourceMetadata: `${origin}/.well-known/oauth-protected-resource/mcp`,
  authorizationServerMetadata: `${origin}/.well-known/oauth-authorization-server`,
  authorizationEndpoint: `${origin}/authorize`,
  tokenEndpoint: `${origin}/token`,
  registrationEndpoint: `${origin}/register`,
});

const OAUTH_PATHS = /^\/(authorize|token|register|revoke|oauth\/|\.well-known\/oauth-)/;

/** How many origins (Host headers) get their own authorization-server instance. */
const MAX_ORIGINS = 16;

type Instance = { ok: true; handler: RequestHandler } | { ok: false; reason: string };

/**
 * OAuth 2.1 for chat-assistant MCP clients, on the SDK's mcpAuthRouter and our provider.
 *
 * The issuer is this server's own origin as the client reached it (after a TLS proxy on
 * loopback, its https origin), so one authorization-server instance is kept per origin. The
 * SDK refuses a plain-http issuer except on loopback: a server reached over http on another
 * host answers the OAuth routes with an error that says to put TLS in front.
 */
export function oauthRouter(ctx: Ctx): Router {
  const router = express.Router();
  const instances = new Map<string, Instance>();

  const instanceFor = (origin: string): Instance => {
    const cached = instances.get(origin);
    if (cached) return cached;
    let instance: Instance;
    const provider = new OutreachOAuthProvider(ctx, origin);
    const options = {
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: new URL(`${origin}/mcp`),
      serviceDocumentationUrl: new URL(`${origin}/public/v1/docs`),
      resourceName: SERVER_NAME,
      // Our own limits below replace the SDK's, which would be created per origin, mid-request.
      authorizationOptions: { rateLimit: false as const },
      tokenOptions: { rateLimit: false as const },
      revocationOptions: { rateLimit: false as const },
      // Registration is idempotent and client secrets are derived, so they need no expiry.
      clientRegistrationOptions: { clientSecretExpirySeconds: 0, rateLimit: false as const },
    };
    try {
      createOAuthMetadata(options);
      instance = { ok: true, handler: mcpAuthRouter(options) };
    } catch {
      instance = {
        ok: false,
        reason: `OAuth needs https: this server was reached at ${origin}. Serve it behind a TLS proxy on the same machine (it honours X-Forwarded-Proto from loopback), or use the X-API-Key header.`,
      };
    }
    if (instances.size >= MAX_ORIGINS) instances.delete(instances.keys().next().value as string);
    instances.set(origin, instance);
    return instance;
  };

  const protectedResource =
    (path: '' | '/mcp'): RequestHandler =>
    (req, res, next) => {
      const origin = baseUrl(req);
      if (!instanceFor(origin).ok) return next();
      res.json({
        resource: `${origin}${path || '/'}`,
        authorization_servers: [new URL(origin).href],
        bearer_methods_supported: ['header'],
        resource_name: SERVER_NAME,
        resource_documentation: `${origin}/public/v1/docs`,
      });
    };
  // Both the root and /mcp serve the MCP transport, so each is a protected resource of its own.
  router.get('/.well-known/oauth-protected-resource', protectedResource(''));
  router.get('/.well-known/oauth-protected-resource/mcp', protectedResource('/mcp'));
  const minutes = (n: number) => n * 60_000;
  router.use('/authorize', perAddressLimit(ctx, { windowMs: minutes(15), max: 100, what: 'authorization requests' }));
  router.use('/token', perAddressLimit(ctx, { windowMs: minutes(15), max: 50, what: 'token requests' }));
  router.use('/revoke', perAddressLimit(ctx, { windowMs: minutes(15), max: 50, what: 'revocation requests' }));
  router.use('/register', perAddressLimit(ctx, { windowMs: minutes(60), max: 20, what: 'client registrations' }));
  // Pasted keys are checked here: slow down guessing, though keys carry 190 bits.
  router.use(CONSENT_PATH, perAddressLimit(ctx, { windowMs: minutes(15), max: 30, what: 'consent attempts' }));
  router.post(CONSENT_PATH, ...consentSubmitHandler(ctx));

  router.use((req: Request, res, next) => {
    if (!OAUTH_PATHS.test(req.path)) return next();
    const instance = instanceFor(baseUrl(req));
    if (instance.ok) return instance.handler(req, res, next);
    res.status(404).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: instance.reason });
  });
  return router;
}
