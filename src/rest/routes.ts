import { match } from 'path-to-regexp';

/**
 * A REST route template such as `/campaigns/:campaignId/leads`, matched by path-to-regexp, the
 * library Express's router matches its routes with, given the options the router gives a route
 * (literal segments in any case, one trailing slash allowed): the same answer as Express by
 * construction. Paths are relative to `/public/v1`. Only what Express could not answer uses it:
 * which methods a path has (for the 404), and the raw, still percent-encoded parameters of a path
 * Express could not decode.
 */
export function routeParser(template: string): { matches: (path: string) => boolean; params: (path: string) => Record<string, string> } {
  const m = match<Record<string, string>>(template, { sensitive: false, end: true, trailing: true, decode: false });
  return {
    matches: (path) => m(path) !== false,
    params: (path) => {
      const found = m(path);
      return found === false ? {} : { ...found.params };
    },
  };
}
