import { defineKind } from './kind.js';

/** `like_post`: reacts to the lead's latest own post; skipped when there is none. */
export interface LikePostStep {
  id: string;
  kind: 'like_post';
}

/** How the kind reads to a person: the dashboard reads this alone, without the kind's code. */
export const likePostLabels = { kind: 'like_post', label: 'Like the latest post', skipReasons: { no_posts: 'no post to like' } } as const;

export const likePost = /* @__PURE__ */ defineKind<LikePostStep, 'like', 'like'>({
  ...likePostLabels,
  // Stored before kinds had one name: the engine's sends and send records keep this.
  send: 'like',
  intent: 'like',
  order: 4,
  input: ({ z, id }) => z.strictObject({ id, kind: z.literal('like_post').describe("Likes the lead's latest post; skipped if none.") }),
  listing: { says: 'like_post (latest post; skipped if none)' },
  output: (z) => z.object({ id: z.string(), kind: z.literal('like_post') }),
  toStep: (_s, id) => ({ id, kind: 'like_post' }),
  skip: () => null,
  touch: true,
  limit: { stored: 'likes' },
  call: async ({ network, recipient, account }) => {
    const liked = await network.likeLatestPost({ ...recipient, account });
    return liked.outcome === 'liked' ? {} : { skipped: 'no_posts' };
  },
  sent: (_lead, _at, skipped) => (skipped ? { changes: {} } : { changes: {}, daily: 'postReactions' }),
});
