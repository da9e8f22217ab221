import { apiKeyName } from '../auth/keys.js';
import { getClient } from '../auth/oauth.js';
import type { Ctx } from '../context.js';
import { ensureOwner } from '../members/members.js';

/** Who did something: a member (dashboard or CLI), an API key, or an OAuth client acting with a key. */
export interface Actor {
  type: 'member' | 'key' | 'oauth_client';
  id: string;
  name: string;
}

export const ACTOR_TYPES = ['member', 'key', 'oauth_client'] as const;

/**
 * What a call knows of its caller; the names of keys and clients are read only when an event is
 * written. `owner` is the CLI's: the workspace's owner as it stands when the event is written
 * (made on first use, or the member the call itself just added as the first).
 */
export type ActorRef = { type: 'member'; id: string; name: string } | { type: 'key'; id: string } | { type: 'oauth_client'; id: string } | { type: 'owner' };

export function resolveActor(ctx: Ctx, ref: ActorRef): Actor {
  if (ref.type === 'member') return ref;
  if (ref.type === 'owner') {
    const owner = ensureOwner(ctx);
    return { type: 'member', id: owner.id, name: owner.name };
  }
  if (ref.type === 'key') return { type: 'key', id: ref.id, name: apiKeyName(ctx, ref.id) ?? ref.id };
  const client = getClient(ctx, ref.id);
  const name = client?.metadata.client_name;
  return { type: 'oauth_client', id: ref.id, name: typeof name === 'string' && name.trim() !== '' ? name.trim().slice(0, 100) : ref.id };
}
