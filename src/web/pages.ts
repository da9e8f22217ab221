/** Small self-contained answers of the /app mount: no script, no external resource, styles in a sheet-free form. */

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const REASONS = {
  unknown: 'This login link is not valid.',
  used: 'This login link was already used. Each link works once.',
  expired: 'This login link has expired. Links work for 15 minutes.',
} as const;

/**
 * The page of a refused login link. It tells the operator what to run; the CSP forbids inline
 * styles, so it is plain semantic HTML.
 */
export function loginFailedPage(reason: keyof typeof REASONS, hint: string): string {
  return page('Login link not valid', [escapeHtml(REASONS[reason]), 'Get a fresh link on the machine that runs the server:'], hint);
}

/** The page of a client address that presented too many bad links (429). */
export function loginThrottledPage(retryAfterSeconds: number, hint: string): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return page(
    'Too many login attempts',
    [
      `Too many login links from this address were not valid. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      'Get a fresh link on the machine that runs the server:',
    ],
    hint,
  );
}

function page(title: string, paragraphs: string[], hint: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · outreach-mcp</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
<pre><code>${escapeHtml(hint)}</code></pre>
<p>Then open the link it prints.</p>
</main>
</body>
</html>
`;
}

export const NOT_BUILT_TEXT =
  'The dashboard is not built on this server. Run `npm run build` in the outreach-mcp directory (npm start and npm install do it too), then reload this page.\n';
