import { createHash, randomBytes } from 'node:crypto';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { newId } from '../ids.js';
import { noteChange } from '../live/feed.js';
import { activeMember, ensureOwner, type MemberRef } from '../members/members.js';
import {
  insertLoginToken,
  insertOperatorSession,
  loginTokenByDigest,
  markLoginTokenUsed,
  markSessionSeen,
  operatorSessionByDigest,
  revokeLiveSessions,
  revokeSessionByDigest,
} from './store.js';

/** A login link works for 15 minutes, once. */
export const LOGIN_TOKEN_TTL_MS = 15 * 60_000;
/** A dashboard session lasts 7 days from login; `outreach login --revoke-all` ends it sooner. */
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;
/** lastSeenAt is advisory; writing it at most once a minute keeps reads write-free. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** 256 random bits, URL-safe: twice the 128 bits a bearer secret needs. */
const mintSecret = (): string => randomBytes(32).toString('base64url');

/** Secrets we mint are 43 base64url characters; anything else is refused before hashing. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Mints a one-time login token (the `token` of `/app/login?token=…`) for a member (the owner by default). Only its
 * digest is stored; the caller prints the link once. Expired tokens are swept here, so the
 * table stays small.
 */
export function createLoginToken(ctx: Ctx, memberId: string = ensureOwner(ctx).id): { token: string; expiresAt: number } {
  const token = mintSecret();
  const now = ctx.clock.now();
  const expiresAt = now + LOGIN_TOKEN_TTL_MS;
  transaction(ctx.db, () => {
    insertLoginToken(ctx, { digest: digest(token), createdAt: now, expiresAt, memberId }, now);
  });
  return { token, expiresAt };
}

export type LoginOutcome = { ok: true; session: string; sessionId: string; expiresAt: number } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/**
 * Consumes a login token and opens a session, in one transaction: a token opens at most one
 * session, even when two requests race with it. Returns the session's cookie value.
 */
export function consumeLoginToken(ctx: Ctx, token: string | undefined): LoginOutcome {
  if (token === undefined || !SECRET_SHAPE.test(token)) return { ok: false, reason: 'unknown' };
  const now = ctx.clock.now();
  return transaction(ctx.db, (): LoginOutcome => {
    const row = loginTokenByDigest(ctx, digest(token));
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.usedAt !== null) return { ok: false, reason: 'used' };
    if (row.expiresAt <= now) return { ok: false, reason: 'expired' };
    if (!activeMember(ctx, row.memberId)) return { ok: false, reason: 'unknown' };
    markLoginTokenUsed(ctx, row.digest, now);
    const session = mintSecret();
    const sessionId = newId('ses');
    const expiresAt = now + SESSION_TTL_MS;
    insertOperatorSession(ctx, { digest: digest(session), id: sessionId, createdAt: now, expiresAt, lastSeenAt: now, memberId: row.memberId }, now);
    return { ok: true, session, sessionId, expiresAt };
  });
}

export interface OperatorSession {
  id: string;
  expiresAt: number;
  /** The member signed in. */
  member: MemberRef;
}

/**
 * The live session behind a cookie value, or null (unknown, expired or revoked, or its member
 * disabled: a disabled member's sessions end at once, since every request asks here).
 */
export function findSession(ctx: Ctx, cookie: string | undefined): OperatorSession | null {
  if (cookie === undefined || !SECRET_SHAPE.test(cookie)) return null;
  const now = ctx.clock.now();
  const row = operatorSessionByDigest(ctx, digest(cookie));
  if (!row || row.revokedAt !== null || row.expiresAt <= now) return null;
  const member = activeMember(ctx, row.memberId);
  if (!member) return null;
  if (now - row.lastSeenAt >= LAST_SEEN_RESOLUTION_MS) {
    markSessionSeen(ctx, row.digest, now);
  }
  return { id: row.id, expiresAt: row.expiresAt, member };
}

/** Ends one session (logout). Unknown cookies are ignored: logging out twice is harmless. */
export function endSession(ctx: Ctx, cookie: string | undefined): void {
  if (cookie === undefined || !SECRET_SHAPE.test(cookie)) return;
  revokeSessionByDigest(ctx, digest(cookie), ctx.clock.now());
  // Its open dashboard stream (another tab) ends now.
  noteChange(ctx, { resource: 'access' });
}

/**
 * Ends every dashboard session and voids every unused login link, at once, also for running
 * servers (they read the table on every request). Returns how many sessions were live.
 */
export function revokeAllSessions(ctx: Ctx): { sessions: number } {
  const now = ctx.clock.now();
  const ended = transaction(ctx.db, () => ({ sessions: revokeLiveSessions(ctx, now) }));
  if (ended.sessions > 0) noteChange(ctx, { resource: 'access' });
  return ended;
}
