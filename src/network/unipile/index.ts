export { createUnipileProvider, UnipileProvider, alreadyConnectedId, alreadyInvitedId, SEARCH_PAGE_MAX, type UnipileDeps } from './provider.js';
export { baseUrlFromDsn, completeUnipileConfig, UNIPILE_SECRET_HEADER, UNIPILE_SETTINGS, UnipileSection, type UnipileConfig } from './config.js';
export { SLUG_RULES, codeFor } from './errors.js';
export { HOSTED_AUTH_NOTIFY_PATH, handleHostedNotify } from './hosted-auth.js';
export { handleUnipileWebhook, unipileWebhook, secretMatches, type InboundAnswer, type InboundCall, type WebhookOutcome } from './inbound.js';
export type { AccountSyncResult } from './accounts.js';
export type { RelationsPollResult } from './relations.js';

/** Where Unipile webhooks are received unless told otherwise. */
export const UNIPILE_WEBHOOK_PATH = '/webhooks/unipile';
