import { and, asc, eq } from 'drizzle-orm';
import { leadImportRows, leadImports } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/**
 * SQL of the dashboard's lead imports (./background.ts): the recorded import, its progress, and
 * the rows it did not create.
 */

type Conn = Pick<Ctx, 'db'>;

export type LeadImportRow = typeof leadImports.$inferSelect;
export type LeadImportRejectedRow = typeof leadImportRows.$inferSelect;

/** The import of this campaign that has not ended (run or waiting to resume), if any. */
export const runningImportOf = (ctx: Conn, campaignId: string): { id: string } | undefined =>
  ctx.db
    .select({ id: leadImports.id })
    .from(leadImports)
    .where(and(eq(leadImports.campaignId, campaignId), eq(leadImports.status, 'running')))
    .get();

/** Every import that has not ended, with its campaign, oldest first. */
export const runningImports = (ctx: Conn): { id: string; campaignId: string }[] =>
  ctx.db
    .select({ id: leadImports.id, campaignId: leadImports.campaignId })
    .from(leadImports)
    .where(eq(leadImports.status, 'running'))
    .orderBy(asc(leadImports.seq))
    .all();

/** Records a new import. */
export function insertLeadImport(ctx: Conn, row: typeof leadImports.$inferInsert): void {
  ctx.db.insert(leadImports).values(row).run();
}

/** The stored row of one import. */
export const leadImportRow = (ctx: Conn, importId: string): LeadImportRow | undefined =>
  ctx.db.select().from(leadImports).where(eq(leadImports.id, importId)).get();

/** The status of one import, read again (a claim checks it in its transaction). */
export const leadImportStatus = (ctx: Conn, importId: string): { status: string } | undefined =>
  ctx.db.select({ status: leadImports.status }).from(leadImports).where(eq(leadImports.id, importId)).get();

/** Writes fields of one import (its progress, its end). */
export function updateLeadImport(ctx: Conn, importId: string, fields: Partial<typeof leadImports.$inferInsert>): void {
  ctx.db.update(leadImports).set(fields).where(eq(leadImports.id, importId)).run();
}

/** Records a row the import did not create; a row already recorded at that line takes the new status, field and message. */
export function upsertImportRow(ctx: Conn, importId: string, r: Omit<LeadImportRejectedRow, 'importId'>): void {
  ctx.db
    .insert(leadImportRows)
    .values({ importId, line: r.line, status: r.status, field: r.field, message: r.message, cells: r.cells })
    .onConflictDoUpdate({
      target: [leadImportRows.importId, leadImportRows.line],
      set: { status: r.status, field: r.field, message: r.message },
    })
    .run();
}

/** The rows an import did not create, by line. */
export const importRowsOf = (ctx: Conn, importId: string): LeadImportRejectedRow[] =>
  ctx.db.select().from(leadImportRows).where(eq(leadImportRows.importId, importId)).orderBy(asc(leadImportRows.line)).all();
