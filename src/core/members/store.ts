import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { loginTokens, members, operatorSessions } from '../../db/schema.js';

import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';

/** A member row as stored (times in ms). */
export type MemberRow = typeof members.$inferSelect;

/** A member by id, prepared once per connection: every dashboard request reads its session's member. */
const memberById = perDb((db) =>
  db.$client.prepare<[string], MemberRow>('SELECT id, name, email, role, created_at AS createdAt, disabled_at AS disabledAt FROM members WHERE id = ?'),
);

/** The members table's SQL, and nothing else's: every member verb reads and writes through here. */
export const memberStore = {
  byId: (db: Db, id: string): MemberRow | undefined => memberById(db).get(id),
  byEmail: (db: Db, email: string): MemberRow | undefined => db.select().from(members).where(eq(members.email, email)).get(),
  owner: (db: Db): MemberRow | undefined => db.select().from(members).where(eq(members.role, 'owner')).get(),
  /** Oldest first: the owner, then the team in the order it joined. */
  all: (db: Db): MemberRow[] => db.select().from(members).orderBy(asc(members.createdAt), asc(members.id)).all(),
  count: (db: Db): number => db.select({ n: sql<number>`count(*)` }).from(members).get()?.n ?? 0,
  insert: (db: Db, row: MemberRow): void => {
    db.insert(members).values(row).run();
  },
  update: (db: Db, id: string, set: Partial<Pick<MemberRow, 'name' | 'email' | 'role' | 'disabledAt'>>): void => {
    db.update(members).set(set).where(eq(members.id, id)).run();
  },
  /** Whether anyone is signed in as the member now, or holds an unused login link for them. */
  inUse: (db: Db, id: string, now: number): boolean =>
    db
      .select({ one: sql<number>`1` })
      .from(operatorSessions)
      .where(and(eq(operatorSessions.memberId, id), isNull(operatorSessions.revokedAt), gt(operatorSessions.expiresAt, now)))
      .get() !== undefined ||
    db
      .select({ one: sql<number>`1` })
      .from(loginTokens)
      .where(and(eq(loginTokens.memberId, id), isNull(loginTokens.usedAt), gt(loginTokens.expiresAt, now)))
      .get() !== undefined,
  /** Ends the member's live sessions and voids their unused login links; returns the sessions ended. */
  endSessions: (db: Db, id: string, now: number): number => {
    const ended = db
      .update(operatorSessions)
      .set({ revokedAt: now })
      .where(and(eq(operatorSessions.memberId, id), isNull(operatorSessions.revokedAt)))
      .run().changes;
    db.update(loginTokens)
      .set({ usedAt: now })
      .where(and(eq(loginTokens.memberId, id), isNull(loginTokens.usedAt)))
      .run();
    return ended;
  },
};
