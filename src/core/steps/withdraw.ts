import { defineKind } from './kind.js';

/** `withdraw`: withdraws the pending invitation we sent. */
export interface WithdrawStep {
  id: string;
  kind: 'withdraw';
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const withdrawLabels = {
  kind: 'withdraw',
  label: 'Withdraw the invitation',
  skipReasons: { already_connected: 'already a connection', no_pending_invitation: 'no pending invitation' },
} as const;

export const withdraw = /* @__PURE__ */ defineKind<WithdrawStep, 'withdraw', 'withdrawal'>({
  ...withdrawLabels,
  send: 'withdraw',
  intent: 'withdrawal',
  order: 3,
  input: ({ z, id }) => z.strictObject({ id, kind: z.literal('withdraw').describe('Withdraws a pending invitation.') }),
  listing: { says: 'withdraw (the pending invitation)' },
  output: (z) => z.object({ id: z.string(), kind: z.literal('withdraw') }),
  toStep: (_s, id) => ({ id, kind: 'withdraw' }),
  skip: (_s, facts, rules) => {
    if (facts.accepted) return 'already_connected';
    // Only an invitation we sent is ours to withdraw.
    if (facts.invitedAt === null || facts.withdrawn) return 'no_pending_invitation';
    return rules.legacy && !rules.withdrawStale ? 'withdrawals_off' : null;
  },
  // A withdrawal frees an invitation: it counts against no limit.
  limit: null,
  call: async ({ network, recipient, account }) => {
    await network.withdrawInvitation({ ...recipient, account });
    return {};
  },
  // The lead moves on as a timed-out invitation does (stage stays connection_sent); the public
  // activity log has no withdrawal type, so the intent is the record.
  sent: (_lead, at) => ({ changes: { invitationWithdrawnAt: at } }),
  // Nothing left to withdraw (accepted, declined or expired at the provider): stop trying, as the timeout would.
  finalFailure: () => ({ reason: 'no_pending_invitation', changes: (at) => ({ invitationWithdrawnAt: at }) }),
});
