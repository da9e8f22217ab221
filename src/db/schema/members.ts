import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The people of the workspace (src/core/members). The first is the owner; there is one owner,
 * and the owner cannot be disabled or given another role.
 */
export const members = sqliteTable(
  'members',
  {
    /** `usr_…` */
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** Lowercased; unique among members. Null only for the owner made on first use, until set. */
    email: text('email').unique(),
    /** owner | admin | operator | reviewer | viewer */
    role: text('role').notNull(),
    createdAt: integer('created_at').notNull(),
    disabledAt: integer('disabled_at'),
  },
  (t) => [check('members_role', sql`${t.role} in ('owner', 'admin', 'operator', 'reviewer', 'viewer')`)],
);
