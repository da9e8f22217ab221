import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Unipile inbound events (webhooks and the relations poll) waiting for `drainInbound`. The id
 * is stable per event, so a webhook retry or a poll that sees an acceptance again is ignored.
 */
export const unipileInbound = sqliteTable(
  'unipile_inbound',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    /** invitation_accepted | message_received */
    type: text('type').notNull(),
    /** Our account id (accounts.id), not Unipile's. */
    accountId: text('account_id').notNull(),
    networkUrl: text('network_url').notNull(),
    providerId: text('provider_id').notNull(),
    chatId: text('chat_id'),
    text: text('text'),
    at: integer('at').notNull(),
    receivedAt: integer('received_at').notNull(),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [index('unipile_inbound_due').on(t.deliveredAt, t.at, t.id)],
);

/** Invitations sent through Unipile, so the relations poll knows whose acceptance to look for. */
export const unipileInvitations = sqliteTable(
  'unipile_invitations',
  {
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    invitedAt: integer('invited_at').notNull(),
    acceptedAt: integer('accepted_at'),
    /** Unipile's id of the invitation, so a stale one can be withdrawn; null when it was not ours to know. */
    invitationId: text('invitation_id'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.providerId] }), index('unipile_invitations_pending').on(t.accountId, t.acceptedAt)],
);

/**
 * Provider id to profile URL, learnt from lookups, searches and relations. Webhooks often name
 * a person by provider id only; this turns that back into the lead's profile URL.
 */
export const unipileContacts = sqliteTable(
  'unipile_contacts',
  {
    providerId: text('provider_id').primaryKey(),
    networkUrl: text('network_url').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('unipile_contacts_url').on(t.networkUrl)],
);
