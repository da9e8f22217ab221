/**
 * A REST route template such as `/campaigns/:campaignId/leads`, matched the way Express
 * matches its routes: literal segments case-insensitively, a `:name` segment by any one
 * non-empty segment, and one trailing slash allowed. Paths are relative to `/public/v1`.
 */
export function routeMatcher(template: string): (path: string) => boolean {
  return routeParser(template).matches;
}

/**
 * A route template's matcher, and the raw (still percent-encoded) path parameters of a path it
 * matches, for a path Express could not decode.
 */
export function routeParser(template: string): { matches: (path: string) => boolean; params: (path: string) => Record<string, string> } {
  const names = template.split('/').map((s) => (s.startsWith(':') ? s.slice(1) : null));
  const matches = routeMatch(template);
  const params = (path: string): Record<string, string> => {
    const parts = path.replace(/\/$/, '').split('/');
    const out: Record<string, string> = {};
    names.forEach((name, i) => {
      if (name !== null) out[name] = parts[i] ?? '';
    });
    return out;
  };
  return { matches, params };
}

function routeMatch(template: string): (path: string) => boolean {
  const segments = template.split('/').map((s) => (s.startsWith(':') ? null : s.toLowerCase()));
  return (path) => {
    const parts = path.replace(/\/$/, '').split('/');
    return parts.length === segments.length && segments.every((s, i) => (s === null ? parts[i] !== '' : s === parts[i]!.toLowerCase()));
  };
}
