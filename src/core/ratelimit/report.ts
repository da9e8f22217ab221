/** One quota policy as it stood for a request: what the RateLimit header fields report. */
export interface PolicyState {
  /** Policy name in the header fields, e.g. `global`, `leads_add`, `profile_lookup_daily`. */
  name: string;
  quota: number;
  windowSeconds: number;
  remaining: number;
  /** Whole seconds within which no more than `remaining` can be used; null when nothing is pending. */
  resetSeconds: number | null;
}

/** Whole seconds, rounded up: what a client must wait so that the refused request passes. */
export const wholeSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000 - 1e-9));

/**
 * The policies that applied to one request, collected as its stages run (rate-limit stage,
 * per-account spacing, daily quotas) and rendered into its response headers.
 */
export class RateLimitReport {
  private readonly byName = new Map<string, PolicyState>();

  add(...states: PolicyState[]): void {
    for (const s of states) this.byName.set(s.name, s);
  }

  get states(): PolicyState[] {
    return [...this.byName.values()];
  }
}

const sfString = (s: string): string => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * The `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11):
 * structured-field lists such as `"global";q=120;w=60` and `"global";r=119;t=1`.
 */
export function rateLimitHeaders(states: readonly PolicyState[]): Record<string, string> {
  if (states.length === 0) return {};
  return {
    'RateLimit-Policy': states.map((s) => `${sfString(s.name)};q=${s.quota};w=${s.windowSeconds}`).join(', '),
    RateLimit: states.map((s) => `${sfString(s.name)};r=${s.remaining}${s.resetSeconds === null ? '' : `;t=${s.resetSeconds}`}`).join(', '),
  };
}
