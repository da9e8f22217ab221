import type { Router } from 'express';
import type { Ctx } from '../core/context.js';
import { crmStatus, listCrmSyncLog, SYNC_DIRECTIONS, SYNC_OUTCOMES } from '../core/crm/log.js';
import type { CrmConnection } from '../core/crm/read.js';
import { ApiError, validationError } from '../core/errors.js';
import { getWorkspace } from '../core/workspace/get.js';
import { sendApiError, sendJson } from './reply.js';
import { sessionOf } from './session.js';

/**
 * The roles that see the CRM page: every role that reads the dashboard (a viewer reads everything
 * it shows), but a reviewer, whose pages are the Drafts queue and the inbox alone. The page only
 * reads; nothing on it changes the sync.
 */
const ROLES = new Set(['owner', 'admin', 'operator', 'viewer']);

const one = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * `GET /app/api/crm`: the CRM page's one read, for every role but a reviewer. The connection (which
 * CRM, the token's variable and whether it is set, never the value), the pull's state, the
 * outbox's backlog, and a page of the sync log filtered by `direction`, `outcome` and `lead`
 * with `cursor`. The sync has no tool of its own: the log is an operator's view, like the
 * dashboard's session, and reads the core verbs directly.
 */
export function mountCrm(router: Router, ctx: Ctx, connection: CrmConnection): void {
  router.get('/api/crm', (req, res) => {
    const { member } = sessionOf(res);
    if (!ROLES.has(member.role))
      return sendApiError(res, new ApiError('forbidden', `The CRM page is not for your role (${member.role}): a reviewer's pages are Drafts and the inbox.`));
    const workspace = getWorkspace(ctx);
    if (!workspace) return sendApiError(res, new ApiError('not_found', 'This server holds no workspace yet.'));
    const direction = one(req.query.direction);
    const outcome = one(req.query.outcome);
    if (direction !== undefined && !(SYNC_DIRECTIONS as readonly string[]).includes(direction))
      return sendApiError(res, validationError(`direction: must be one of ${SYNC_DIRECTIONS.join(', ')}.`, ['direction']));
    if (outcome !== undefined && !(SYNC_OUTCOMES as readonly string[]).includes(outcome))
      return sendApiError(res, validationError(`outcome: must be one of ${SYNC_OUTCOMES.join(', ')}.`, ['outcome']));
    try {
      const log = listCrmSyncLog(ctx, workspace.cursorSecret, {
        limit: 50,
        ...(direction ? { direction: direction as (typeof SYNC_DIRECTIONS)[number] } : {}),
        ...(outcome ? { outcome: outcome as (typeof SYNC_OUTCOMES)[number] } : {}),
        ...(one(req.query.lead) ? { leadId: one(req.query.lead) } : {}),
        ...(one(req.query.cursor) ? { cursor: one(req.query.cursor) } : {}),
      });
      sendJson(res, 200, { connection, ...crmStatus(ctx), log });
    } catch (err) {
      if (err instanceof ApiError) return sendApiError(res, err);
      throw err;
    }
  });
}
