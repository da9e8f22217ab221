import { UsageError } from '../config.js';
import { addMember, listMembers, type Member } from '../core/members/members.js';
import { isRole, ROLES, type Role } from '../core/members/roles.js';
import { addMemberTool, disableMemberTool, enableMemberTool, listMembersTool, updateMemberTool } from '../tools/operator/members.js';
import { asOwner, asUsageError, operate, parse, stdout, table, withDbAsync, type Options } from './shared.js';

export const MEMBERS_USAGE = `  members list [--json] [--db PATH]
                        List the members: id, name, email, role, and whether disabled.
  members add --name NAME --email EMAIL [--role ROLE] [--json] [--db PATH]
                        Add a member (role: ${ROLES.join(', ')}; default viewer). The first member
                        of a workspace is its owner; the "Owner" earlier commands made, unused,
                        is taken over by the first added without --role, or by --role owner.
                        Sign them in with \`outreach login --member ID\`.
  members update ID [--name NAME] [--email EMAIL] [--role ROLE] [--json] [--db PATH]
                        Change a member's name, email or role (the owner stays the owner).
  members disable ID [--json] [--db PATH]
                        Disable a member: their dashboard sessions end at once.
  members enable ID [--json] [--db PATH]
                        Enable a disabled member again. Their old sessions stay ended: sign them
                        in with a new \`outreach login --member ID\`.`;

const FLAGS = { db: { type: 'string' }, json: { type: 'boolean' } } satisfies Options;
const NAMES = { name: '--name', email: '--email', role: '--role', memberId: 'ID' };

function role(value: string | undefined): Role | undefined {
  if (value !== undefined && !isRole(value)) throw new UsageError(`--role: "${value}" must be one of ${ROLES.join(', ')}`);
  return value;
}

function memberTable(members: Member[]): void {
  table([
    ['ID', 'NAME', 'EMAIL', 'ROLE', 'STATUS'],
    ...members.map((m) => [m.id, m.name, m.email ?? '-', m.role, m.disabledAt ? `disabled ${m.disabledAt}` : 'active']),
  ]);
}

const line = (m: Member): string => `${m.id}  ${m.name} <${m.email ?? 'no email'}>  ${m.role}${m.disabledAt ? `  disabled ${m.disabledAt}` : ''}`;

/** `outreach members …`: the Members page's tools, through the pipeline, as the owner (audited like any write). */
export async function members(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = parse(rest, FLAGS);
      return withDbAsync(
        values.db,
        async (ctx) => {
          const { members } = await operate<{ members: Member[] }>(ctx, listMembersTool, {});
          if (values.json) return stdout(JSON.stringify(members, null, 2));
          if (members.length === 0) return stdout('No members yet. Add the owner with: npx outreach members add --name NAME --email EMAIL');
          memberTable(members);
        },
        { mustExist: true },
      );
    }
    case 'add': {
      const { values } = parse(rest, { ...FLAGS, name: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } });
      if (values.name === undefined) throw new UsageError('members add: --name is required');
      if (values.email === undefined) throw new UsageError('members add: --email is required');
      const input = { name: values.name, email: values.email, ...(values.role !== undefined ? { role: role(values.role) } : {}) };
      return withDbAsync(
        values.db,
        async (ctx) => {
          let member: Member;
          try {
            // The first member is the owner: added directly (a tool call would first make an
            // "Owner" to act as), and recorded as the owner it becomes.
            if (listMembers(ctx).length === 0) {
              member = asOwner(ctx, { action: 'add_member', targets: [], summary: 'Add member (the owner)' }, () => addMember(ctx, input));
            } else {
              ({ member } = await operate<{ member: Member }>(ctx, addMemberTool, input));
            }
          } catch (err) {
            throw asUsageError(err, NAMES);
          }
          if (values.json) return stdout(JSON.stringify(member, null, 2));
          stdout(`Added ${line(member)}`);
          stdout(`Sign them in with: npx outreach login --member ${member.id}`);
        },
        { mustExist: true },
      );
    }
    case 'update':
    case 'disable':
    case 'enable': {
      const extra = sub === 'update' ? { name: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } } : {};
      const { values, positionals } = parse(
        rest,
        { ...FLAGS, ...extra } as typeof FLAGS & { name: { type: 'string' }; email: { type: 'string' }; role: { type: 'string' } },
        1,
      );
      const memberId = positionals[0];
      if (!memberId) throw new UsageError(`members ${sub}: the member ID is required (see \`npx outreach members list\`)`);
      return withDbAsync(
        values.db,
        async (ctx) => {
          let member: Member;
          let ended = 0;
          try {
            if (sub === 'update') {
              const change = { memberId, name: values.name, email: values.email, role: role(values.role) };
              if (change.name === undefined && change.email === undefined && change.role === undefined) {
                throw new UsageError('members update: give --name, --email or --role');
              }
              ({ member } = await operate<{ member: Member }>(
                ctx,
                updateMemberTool,
                Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)),
              ));
            } else if (sub === 'enable') {
              ({ member } = await operate<{ member: Member }>(ctx, enableMemberTool, { memberId }));
            } else {
              ({ member, sessionsEnded: ended } = await operate<{ member: Member; sessionsEnded: number }>(ctx, disableMemberTool, { memberId }));
            }
          } catch (err) {
            throw asUsageError(err, NAMES);
          }
          if (values.json) return stdout(JSON.stringify(sub === 'disable' ? { member, sessionsEnded: ended } : member, null, 2));
          if (sub === 'update') return stdout(`Updated ${line(member)}`);
          if (sub === 'enable') {
            stdout(`Enabled ${line(member)}.`);
            return stdout(`Sign them in with: npx outreach login --member ${member.id}`);
          }
          stdout(`Disabled ${line(member)}. Ended ${ended} dashboard session${ended === 1 ? '' : 's'}.`);
        },
        { mustExist: true },
      );
    }
    default:
      throw new UsageError(
        sub
          ? `members: unknown subcommand "${sub}" (list, add, update, disable, enable)`
          : 'members: a subcommand is required (list, add, update, disable, enable)',
      );
  }
}
