import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { transaction } from '../../db/tx.js';
import { isRole, type Role } from './roles.js';
import { memberStore, type MemberRow } from './store.js';
import { noteAuditTarget } from '../audit/current.js';
import { noteChange } from '../live/feed.js';

/** A member as every face shows it. */
export interface Member {
  id: string;
  name: string;
  email: string | null;
  role: Role;
  createdAt: string;
  disabledAt: string | null;
}

/** What a caller needs of its member: who, and what it may do. */
export interface MemberRef {
  id: string;
  name: string;
  role: Role;
}

export const memberView = (row: MemberRow): Member => ({
  id: row.id,
  name: row.name,
  email: row.email,
  role: row.role as Role,
  createdAt: iso(row.createdAt),
  disabledAt: row.disabledAt === null ? null : iso(row.disabledAt),
});

export const memberRef = (row: MemberRow): MemberRef => ({ id: row.id, name: row.name, role: row.role as Role });

/** The name the owner made on first use carries until they set their own. */
export const FIRST_OWNER_NAME = 'Owner';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) throw validationError('name: 1 to 100 characters.', ['name']);
  return trimmed;
}

function cleanEmail(ctx: Ctx, email: string, self?: string): string {
  const lower = email.trim().toLowerCase();
  if (lower.length > 254 || !EMAIL.test(lower)) throw validationError('email: an address such as ada@example.com.', ['email']);
  const holder = memberStore.byEmail(ctx.db, lower);
  if (holder && holder.id !== self)
    throw new ApiError('conflict', `${lower} is already the email of member ${holder.id}.`, { fields: ['email'], memberId: holder.id });
  return lower;
}

function cleanRole(role: unknown): Role {
  if (!isRole(role)) throw validationError('role: one of owner, admin, operator, reviewer, viewer.', ['role']);
  return role;
}

const noSuchMember = (id: string) => new ApiError('not_found', `No member ${id}. \`outreach members list\` shows the members.`, { fields: ['memberId'] });

export function listMembers(ctx: Ctx): Member[] {
  return memberStore.all(ctx.db).map(memberView);
}

export function getMember(ctx: Ctx, id: string): Member {
  const row = memberStore.byId(ctx.db, id);
  if (!row) throw noSuchMember(id);
  return memberView(row);
}

/** The member a live session or a login link stands for: null when unknown or disabled. */
export function activeMember(ctx: Ctx, id: string | null): MemberRef | null {
  if (id === null) return null;
  const row = memberStore.byId(ctx.db, id);
  return row && row.disabledAt === null ? memberRef(row) : null;
}

/**
 * The owner, made on first use when the workspace has no member yet (a workspace from before
 * members, or a fresh one): named "Owner", with no email until `members update` sets one.
 */
/** The workspace's owner, or undefined while it has none (nothing is made). */
export function findOwner(ctx: Ctx): MemberRef | undefined {
  const row = memberStore.owner(ctx.db);
  return row ? memberRef(row) : undefined;
}

export function ensureOwner(ctx: Ctx): MemberRef {
  const existing = memberStore.owner(ctx.db);
  if (existing) return memberRef(existing);
  return transaction(ctx.db, () => {
    const again = memberStore.owner(ctx.db);
    if (again) return memberRef(again);
    const row: MemberRow = { id: newId('usr'), name: FIRST_OWNER_NAME, email: null, role: 'owner', createdAt: ctx.clock.now(), disabledAt: null };
    memberStore.insert(ctx.db, row);
    return memberRef(row);
  });
}

export interface NewMember {
  name: string;
  email: string;
  role?: Role | undefined;
}

/**
 * Whether the owner is the one made on first use and nobody has made it theirs yet: still
 * "Owner" with no email, and nobody signed in as it or holding a link to it. The CLI's writes
 * make it to have someone to record; a person added as owner, or the first one added with no
 * role, takes it over.
 */
function isUnclaimed(ctx: Ctx, owner: MemberRow): boolean {
  return owner.email === null && owner.name === FIRST_OWNER_NAME && !memberStore.inUse(ctx.db, owner.id, ctx.clock.now());
}

/**
 * Adds a member. The first member of a workspace is its owner whatever role was asked; after
 * that, nobody else becomes owner (there is one). The owner made on first use, unclaimed, does
 * not count: a person added as owner, or the first added without a role, takes it over (its id,
 * and what it did, become theirs), so `members add` after a few CLI writes still makes the owner.
 */
export function addMember(ctx: Ctx, input: NewMember): Member {
  return transaction(ctx.db, () => {
    const count = memberStore.count(ctx.db);
    const claims = input.role === 'owner' || (input.role === undefined && count === 1);
    const owner = claims ? memberStore.owner(ctx.db) : undefined;
    if (owner && isUnclaimed(ctx, owner)) {
      noteAuditTarget(owner.id);
      return updateMember(ctx, owner.id, { name: input.name, email: input.email });
    }
    const first = count === 0;
    const role = first ? 'owner' : cleanRole(input.role ?? 'viewer');
    if (!first && role === 'owner') {
      if (owner && owner.email === null)
        throw validationError(
          `role: the workspace has its owner, ${owner.id} ("${owner.name}", made on first use, with no email yet). If that is you, set your name and email on it: \`outreach members update ${owner.id} --name NAME --email EMAIL\`; else add an admin instead.`,
          ['role'],
        );
      throw validationError('role: the workspace has its owner; add an admin instead.', ['role']);
    }
    const row: MemberRow = {
      id: newId('usr'),
      name: cleanName(input.name),
      email: cleanEmail(ctx, input.email),
      role,
      createdAt: ctx.clock.now(),
      disabledAt: null,
    };
    memberStore.insert(ctx.db, row);
    noteAuditTarget(row.id);
    return memberView(row);
  });
}

export interface MemberChange {
  name?: string | undefined;
  email?: string | undefined;
  role?: Role | undefined;
}

/** Changes a member's name, email or role. The owner's role stays owner, and no one else becomes owner. */
export function updateMember(ctx: Ctx, id: string, change: MemberChange): Member {
  return transaction(ctx.db, () => {
    const row = memberStore.byId(ctx.db, id);
    if (!row) throw noSuchMember(id);
    const set: Parameters<typeof memberStore.update>[2] = {};
    if (change.name !== undefined) set.name = cleanName(change.name);
    if (change.email !== undefined) set.email = cleanEmail(ctx, change.email, id);
    if (change.role !== undefined) {
      const role = cleanRole(change.role);
      if (role !== row.role) {
        if (row.role === 'owner') throw validationError("role: the owner's role cannot change; the owner keeps everything.", ['role']);
        if (role === 'owner') throw validationError('role: the workspace has one owner.', ['role']);
        set.role = role;
      }
    }
    if (Object.keys(set).length > 0) memberStore.update(ctx.db, id, set);
    return memberView({ ...row, ...set });
  });
}

/**
 * Disables a member: their sessions end and their unused login links die in the same
 * transaction, so their next request is refused. The owner cannot be disabled. Disabling twice
 * is harmless.
 */
export function disableMember(ctx: Ctx, id: string): Member & { sessionsEnded: number } {
  return transaction(ctx.db, () => {
    const row = memberStore.byId(ctx.db, id);
    if (!row) throw noSuchMember(id);
    if (row.role === 'owner') throw validationError('memberId: the owner cannot be disabled.', ['memberId']);
    const now = ctx.clock.now();
    const disabledAt = row.disabledAt ?? now;
    if (row.disabledAt === null) memberStore.update(ctx.db, id, { disabledAt });
    const sessionsEnded = memberStore.endSessions(ctx.db, id, now);
    // The member's open dashboard streams end now, not at the next change in the workspace.
    if (sessionsEnded > 0) noteChange(ctx, { resource: 'access' });
    return { ...memberView({ ...row, disabledAt }), sessionsEnded };
  });
}

/**
 * Enables a disabled member again: they may be sent a new login link. The sessions and links
 * that disabling ended stay ended (enabling restores no session); the member signs in anew.
 * Enabling an active member (the owner is always one) is harmless and changes nothing.
 */
export function enableMember(ctx: Ctx, id: string): Member {
  return transaction(ctx.db, () => {
    const row = memberStore.byId(ctx.db, id);
    if (!row) throw noSuchMember(id);
    if (row.disabledAt === null) return memberView(row);
    memberStore.update(ctx.db, id, { disabledAt: null });
    return memberView({ ...row, disabledAt: null });
  });
}
