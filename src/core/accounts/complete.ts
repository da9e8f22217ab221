import { accounts } from '../../db/schema.js';
import { completeByIdOrName, type Completion } from '../completion/match.js';
import type { Ctx } from '../context.js';

/** LinkedIn account ids for a partly typed accountId: by id prefix or by name, within the workspace. */
export function completeAccountIds(ctx: Ctx, typed: string): Completion {
  return completeByIdOrName(ctx, { table: accounts, id: accounts.id, name: accounts.name }, typed);
}
