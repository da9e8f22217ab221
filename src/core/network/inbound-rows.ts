import type { InboundEvent } from './provider.js';

/**
 * How an InboundEvent is stored: the simulated network's inbox and the Unipile adapter's
 * queue keep events in tables of the same shape, and map them through these two functions.
 */
export interface InboundRow {
  id: string;
  type: string;
  accountId: string;
  networkUrl: string;
  providerId: string;
  chatId: string | null;
  text: string | null;
  at: number;
}

export function inboundRow(event: InboundEvent): InboundRow {
  const { id, type, accountId, networkUrl, providerId, at } = event;
  const message = event.type === 'message_received';
  return { id, type, accountId, networkUrl, providerId, at, chatId: message ? event.chatId : null, text: message ? event.text : null };
}

export function inboundEvent(row: InboundRow): InboundEvent {
  const base = { id: row.id, accountId: row.accountId, networkUrl: row.networkUrl, providerId: row.providerId, at: row.at };
  if (row.type === 'message_received') return { ...base, type: 'message_received', chatId: row.chatId ?? '', text: row.text ?? '' };
  return { ...base, type: 'invitation_accepted' };
}
