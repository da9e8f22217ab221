import { useMemo, type AnchorHTMLAttributes } from 'react';
import { Link as RouterLink, useLocation as useRouterLocation, useSearch } from 'wouter';
import { navigate as browserNavigate } from 'wouter/use-browser-location';

/**
 * Client-side routing with real paths under the mount (`/app/campaigns/cmp_x`), on wouter. The
 * app wraps its routes in wouter's `<Router base={BASE}>`; pages use only the three names below,
 * so they need no router of their own in component tests.
 */
export const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

/** The path inside the mount, e.g. `/campaigns/cmp_x`, and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [path] = useRouterLocation();
  const search = useSearch();
  const query = useMemo(() => new URLSearchParams(search), [search]);
  return { path, query };
}

/** Goes to a path inside the mount, from an event handler or a mutation's callback. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  browserNavigate(`${BASE}${to}`, options);
}

/** A link to a path inside the mount; a plain click navigates without a page load. */
export function Link({ to, ...rest }: { to: string } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  return <RouterLink href={to} {...rest} />;
}
