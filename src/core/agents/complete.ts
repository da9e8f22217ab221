import { agents } from '../../db/schema.js';
import { completeByIdOrName, type Completion } from '../completion/match.js';
import type { Ctx } from '../context.js';

/** Agent ids for a partly typed agentId: by id prefix or by name, within the workspace. */
export function completeAgentIds(ctx: Ctx, typed: string): Completion {
  return completeByIdOrName(ctx, { table: agents, id: agents.id, name: agents.name }, typed);
}
