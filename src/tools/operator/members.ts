import { z } from 'zod';
import { addMember, disableMember, enableMember, listMembers, updateMember } from '../../core/members/members.js';
import { ROLES } from '../../core/members/roles.js';
import { IsoTimestamp } from '../../core/clock.js';
import { defineOperatorTool } from '../define.js';
import { pathId } from '../params.js';

const Role = z.enum(ROLES);
export const MemberView = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: Role,
  createdAt: IsoTimestamp,
  disabledAt: IsoTimestamp.nullable(),
});
const MemberId = pathId('member').describe('The member id (usr_…), from list_members.');
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

export const listMembersTool = defineOperatorTool({
  name: 'list_members',
  title: 'List members',
  description: 'Lists the members of the workspace, the owner first, with their roles.',
  input: z.strictObject({}),
  output: z.object({ members: z.array(MemberView) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx) => ({ members: listMembers(ctx) }),
});

export const addMemberTool = defineOperatorTool({
  name: 'add_member',
  title: 'Add member',
  description: 'Adds a member with a role; the first member of a workspace is its owner. Sign them in with a login link.',
  input: z.strictObject({
    name: z.string().describe('1-100 characters.'),
    email: z.string().describe('Unique among members.'),
    role: Role.optional().describe('Default viewer.'),
  }),
  output: z.object({ member: MemberView }),
  annotations: WRITE,
  handler: (ctx, input) => ({ member: addMember(ctx, input) }),
});

export const updateMemberTool = defineOperatorTool({
  name: 'update_member',
  title: 'Update member',
  description: "Changes a member's name, email or role. The owner's role does not change.",
  input: z.strictObject({ memberId: MemberId, name: z.string().optional(), email: z.string().optional(), role: Role.optional() }),
  output: z.object({ member: MemberView }),
  annotations: { ...WRITE, idempotentHint: true },
  handler: (ctx, { memberId, ...change }) => ({ member: updateMember(ctx, memberId, change) }),
});

export const disableMemberTool = defineOperatorTool({
  name: 'disable_member',
  title: 'Disable member',
  description: 'Disables a member: their sessions end at once and their login links stop working. The owner cannot be disabled.',
  input: z.strictObject({ memberId: MemberId }),
  output: z.object({ member: MemberView, sessionsEnded: z.number().int() }),
  annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
  handler: (ctx, { memberId }) => {
    const { sessionsEnded, ...member } = disableMember(ctx, memberId);
    return { member, sessionsEnded };
  },
});

export const enableMemberTool = defineOperatorTool({
  name: 'enable_member',
  title: 'Enable member',
  description:
    'Enables a disabled member again. Their old sessions and login links stay ended: sign them in with a new login link. Enabling an active member changes nothing.',
  input: z.strictObject({ memberId: MemberId }),
  output: z.object({ member: MemberView }),
  annotations: { ...WRITE, idempotentHint: true },
  handler: (ctx, { memberId }) => ({ member: enableMember(ctx, memberId) }),
});
