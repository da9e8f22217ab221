import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { inserterOf, perDb } from '../prepared.js';
import { messages } from '../schema.js';

/* Statements of every message sent or received: the message row and its thread's summary. */

export const insertMessage = inserterOf(messages);

export interface ThreadValues {
  leadId: string;
  campaignId: string;
  /** The message's time when inbound, else 0. */
  inboundAt: number;
  at: number;
  direction: string;
  sender: string;
  preview: string;
  /** The message's channel: the thread is marked by its newest message's. */
  channel: string;
}

export const messageStatements: (db: Db) => {
  upsertThread: Statement<[ThreadValues]>;
  hasInbound: Statement<[string, string], number>;
} = perDb((db) => ({
  // Whether a lead's thread holds an inbound message of this provider id (an email's Message-ID): read once per reply an inbox read records.
  hasInbound: db.$client
    .prepare<[string, string], number>("SELECT 1 FROM messages WHERE lead_id = ? AND direction = 'inbound' AND external_id = ? LIMIT 1")
    .pluck(),
  // A message stamped earlier than the thread's newest (a late inbound event) does not replace its
  // preview, nor the channel the thread shows (its newest message's). The SET expressions read the
  // row as it was, so each compares with the thread's newest message before this one.
  upsertThread: db.$client.prepare<[ThreadValues]>(
    `INSERT INTO conversations (lead_id, campaign_id, last_inbound_at, last_message_at, last_direction, last_sender, last_preview, message_count, last_channel)
     VALUES (@leadId, @campaignId, @inboundAt, @at, @direction, @sender, @preview, 1, @channel)
     ON CONFLICT (lead_id) DO UPDATE SET
       last_inbound_at = max(last_inbound_at, @inboundAt),
       last_direction = CASE WHEN @at >= last_message_at THEN @direction ELSE last_direction END,
       last_sender = CASE WHEN @at >= last_message_at THEN @sender ELSE last_sender END,
       last_preview = CASE WHEN @at >= last_message_at THEN @preview ELSE last_preview END,
       last_channel = CASE WHEN @at >= last_message_at THEN @channel ELSE last_channel END,
       last_message_at = max(last_message_at, @at),
       message_count = message_count + 1`,
  ),
}));
