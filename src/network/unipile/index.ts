import type { Express } from 'express';
import type { UnipileProvider } from './provider.js';
import { HOSTED_AUTH_NOTIFY_PATH } from './hosted-auth.js';

export { HOSTED_AUTH_NOTIFY_PATH, handleHostedNotify } from './hosted-auth.js';

export { createUnipileProvider, UnipileProvider, alreadyConnectedId, alreadyInvitedId, CONNECTION_NOTE_MAX, SEARCH_PAGE_MAX, type UnipileDeps } from './provider.js';
export { baseUrlFromDsn, completeUnipileConfig, UNIPILE_SECRET_HEADER, UNIPILE_SETTINGS, UnipileSection, type UnipileConfig } from './config.js';
export { SLUG_RULES, codeFor } from './errors.js';
export { handleUnipileWebhook, unipileWebhookRouter, secretMatches, type WebhookOutcome } from './inbound.js';
export type { AccountSyncResult } from './accounts.js';
export type { RelationsPollResult } from './relations.js';

/** Where Unipile webhooks are received unless told otherwise. */
export const UNIPILE_WEBHOOK_PATH = '/webhooks/unipile';

/**
 * Mounts the Unipile webhook endpoint on the app. Call it before the app's catch-all 404
 * handler; the route needs no API key, only the inbound secret header.
 */
export function mountUnipileWebhook(app: Express, provider: UnipileProvider, path: string = UNIPILE_WEBHOOK_PATH): void {
  // Mounted first: the hosted sign-in notify carries no secret header (it is checked against Unipile's API instead).
  app.use(HOSTED_AUTH_NOTIFY_PATH, provider.hostedNotifyRouter());
  app.use(path, provider.webhookRouter());
}
