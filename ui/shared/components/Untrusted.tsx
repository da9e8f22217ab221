import type { ReactNode } from 'react';

/**
 * Text that someone else wrote: a lead's name, company or message, a campaign's or an agent's
 * name. In a <bdi>, its direction is isolated (a right-to-left override inside it cannot
 * reorder the fields around it, and a right-to-left name lays out on its own), and the theme
 * lets a long word in it wrap anywhere, so one word cannot widen the page.
 */
export function Untrusted({ children, fallback = '—' }: { children: string | null | undefined; fallback?: ReactNode }) {
  if (children == null || children === '') return <>{fallback}</>;
  return <bdi className="o-u">{children}</bdi>;
}

/**
 * A block of someone else's text (a message): its base direction follows its first strong
 * character, and long words wrap, as for Untrusted.
 */
export function UntrustedBlock({ as: Tag = 'p', className, children }: { as?: 'p' | 'div' | 'span'; className?: string; children: ReactNode }) {
  return (
    <Tag dir="auto" className={className ? `o-u ${className}` : 'o-u'}>
      {children}
    </Tag>
  );
}
