import { apiKeys } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/** SQL of the API keys table that the key verbs (./keys.ts) share with the demo seed. */

/** Whether the database holds any API key, revoked ones included. */
export const anyApiKey = (ctx: Pick<Ctx, 'db'>): boolean => ctx.db.select({ id: apiKeys.id }).from(apiKeys).limit(1).get() !== undefined;
