/**
 * A REST route template such as `/campaigns/:campaignId/leads`, matched the way Express
 * matches its routes: literal segments case-insensitively, a `:name` segment by any one
 * non-empty segment, and one trailing slash allowed. Paths are relative to `/public/v1`.
 */
export function routeMatcher(template: string): (path: string) => boolean {
  const segments = template.split('/').map((s) => (s.startsWith(':') ? null : s.toLowerCase()));
  return (path) => {
    const parts = path.replace(/\/$/, '').split('/');
    return parts.length === segments.length && segments.every((s, i) => (s === null ? parts[i] !== '' : s === parts[i]!.toLowerCase()));
  };
}
