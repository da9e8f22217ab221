import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizeProfileUrl } from '../../src/core/leads/url.js';

const ADA = 'https://www.linkedin.com/in/ada-lovelace';

describe('normalizeProfileUrl', () => {
  it.each([
    ['https://www.linkedin.com/in/ada-lovelace', ADA],
    ['http://www.linkedin.com/in/ada-lovelace', ADA],
    ['https://linkedin.com/in/ada-lovelace', ADA],
    ['https://uk.linkedin.com/in/ada-lovelace', ADA],
    ['https://de.linkedin.com/in/ada-lovelace/', ADA],
    ['https://www.linkedin.com/in/ada-lovelace/', ADA],
    ['https://www.linkedin.com/in/ada-lovelace?trk=people-search', ADA],
    ['https://www.linkedin.com/in/ada-lovelace/?utm_source=x&b=2', ADA],
    ['https://www.linkedin.com/in/ada-lovelace#experience', ADA],
    ['https://www.linkedin.com/in/ada-lovelace/?a=1#top', ADA],
    ['https://www.linkedin.com/in/ada-lovelace?', ADA],
    ['https://www.linkedin.com/in/Ada-Lovelace', ADA],
    ['https://www.linkedin.com/in/ADA-LOVELACE/', ADA],
    ['HTTPS://WWW.LINKEDIN.COM/in/ada-lovelace', ADA],
    ['https://www.linkedin.com:443/in/ada-lovelace', ADA],
    ['  https://www.linkedin.com/in/ada-lovelace  ', ADA],
    ['https://www.linkedin.com/in/ada%2Dlovelace', ADA],
    ['https://www.linkedin.com/in/%61da-lovelace', ADA],
    ['https://www.linkedin.com/in/j%C3%BCrgen-m%C3%BCller', 'https://www.linkedin.com/in/jürgen-müller'],
    ['https://www.linkedin.com/in/J%C3%9CRGEN', 'https://www.linkedin.com/in/jürgen'],
    ['https://www.linkedin.com/in/jürgen', 'https://www.linkedin.com/in/jürgen'],
    ['https://www.linkedin.com/in/%E7%8E%8B%E5%B0%8F%E6%98%8E', 'https://www.linkedin.com/in/王小明'],
    ['https://www.linkedin.com/in/john_doe-1a2b3c4d', 'https://www.linkedin.com/in/john_doe-1a2b3c4d'],
    // Without a scheme, as copied from an address bar: read as https.
    ['linkedin.com/in/ada-lovelace', ADA],
    ['www.linkedin.com/in/ada-lovelace/', ADA],
    ['WWW.LinkedIn.com/in/Ada-Lovelace?trk=x', ADA],
    ['uk.linkedin.com/in/ada-lovelace', ADA],
    ['  linkedin.com/in/ada-lovelace  ', ADA],
  ])('accepts %s', (input, normal) => {
    expect(normalizeProfileUrl(input)).toBe(normal);
  });

  it.each([
    ['a company page', 'https://www.linkedin.com/company/analytical-engines'],
    ['a company page with a slash', 'https://www.linkedin.com/company/analytical-engines/'],
    ['a school page', 'https://www.linkedin.com/school/cambridge/'],
    ['a Sales Navigator lead', 'https://www.linkedin.com/sales/lead/ACwAAAB1234,NAME_SEARCH,abcd'],
    ['a Sales Navigator people URL', 'https://www.linkedin.com/sales/people/ACwAAAB1234'],
    ['a Sales Navigator search', 'https://www.linkedin.com/sales/search/people?query=x'],
    ['a post', 'https://www.linkedin.com/posts/ada-lovelace_activity-123'],
    ['a profile sub-page', 'https://www.linkedin.com/in/ada-lovelace/details/experience/'],
    ['a double trailing slash', 'https://www.linkedin.com/in/ada-lovelace//'],
    ['an empty slug', 'https://www.linkedin.com/in/'],
    ['no slug at all', 'https://www.linkedin.com/in'],
    ['an old public profile', 'https://www.linkedin.com/pub/ada-lovelace/1/2/3'],
    ['the feed', 'https://www.linkedin.com/feed/'],
    ['an upper-case /IN/', 'https://www.linkedin.com/IN/ada-lovelace'],
    ['another host', 'https://www.example.com/in/ada-lovelace'],
    ['a look-alike host', 'https://www.linkedin.com.evil.example/in/ada-lovelace'],
    ['a host ending in linkedin.com', 'https://notlinkedin.com/in/ada-lovelace'],
    ['a three-letter subdomain', 'https://abc.linkedin.com/in/ada-lovelace'],
    ['a one-letter subdomain', 'https://m.linkedin.com/in/ada-lovelace'],
    ['two subdomains', 'https://www.uk.linkedin.com/in/ada-lovelace'],
    ['a short link', 'https://lnkd.in/abc123'],
    ['ftp', 'ftp://www.linkedin.com/in/ada-lovelace'],
    ['javascript', 'javascript:alert(1)'],
    ['no scheme, another host', 'www.example.com/in/ada-lovelace'],
    ['no scheme, a company page', 'linkedin.com/company/analytical-engines'],
    ['no scheme, a look-alike host', 'linkedin.com.evil.example/in/ada-lovelace'],
    ['a protocol-relative URL', '//www.linkedin.com/in/ada-lovelace'],
    ['a bare slug', 'ada-lovelace'],
    ['a scheme with one slash', 'https:/www.linkedin.com/in/ada-lovelace'],
    ['a scheme with no slash', 'https:www.linkedin.com/in/ada-lovelace'],
    ['backslashes', 'https:\\\\www.linkedin.com\\in\\ada-lovelace'],
    ['a newline in the host', 'https://www.linked\nin.com/in/ada-lovelace'],
    ['a tab in the slug', 'https://www.linkedin.com/in/ada\t-lovelace'],
    ['a space in the slug', 'https://www.linkedin.com/in/ada lovelace'],
    ['an encoded space', 'https://www.linkedin.com/in/ada%20lovelace'],
    ['an encoded slash', 'https://www.linkedin.com/in/ada%2Flovelace'],
    ['an encoded question mark', 'https://www.linkedin.com/in/ada%3Flovelace'],
    ['an encoded NUL', 'https://www.linkedin.com/in/ada%00'],
    ['markup in the slug', 'https://www.linkedin.com/in/%3Cscript%3E'],
    ['a quote in the slug', "https://www.linkedin.com/in/o'brien"],
    ['broken percent-encoding', 'https://www.linkedin.com/in/ada%ZZ'],
    ['a truncated escape', 'https://www.linkedin.com/in/ada%E2%82'],
    ['a dot-dot slug', 'https://www.linkedin.com/in/..'],
    ['an encoded dot-dot slug', 'https://www.linkedin.com/in/%2e%2e'],
    ['credentials', 'https://user:pass@www.linkedin.com/in/ada-lovelace'],
    ['a non-default port', 'https://www.linkedin.com:8443/in/ada-lovelace'],
    ['a slug over 100 characters', `https://www.linkedin.com/in/${'a'.repeat(101)}`],
    ['a URL over 2048 characters', `https://www.linkedin.com/in/ada?${'q'.repeat(2100)}`],
    ['an empty string', ''],
    ['spaces only', '   '],
    ['garbage', 'not a url at all'],
    ['JSON', '{"networkUrl":"https://www.linkedin.com/in/ada"}'],
  ])('refuses %s', (_what, input) => {
    expect(normalizeProfileUrl(input)).toBeNull();
  });

  it('accepts a slug of 100 characters', () => {
    expect(normalizeProfileUrl(`https://www.linkedin.com/in/${'a'.repeat(100)}`)).toBe(`https://www.linkedin.com/in/${'a'.repeat(100)}`);
  });

  it('is idempotent: a normal form normalises to itself', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const once = normalizeProfileUrl(s);
        if (once !== null) expect(normalizeProfileUrl(once)).toBe(once);
      }),
    );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9_-]{1,100}$/),
        fc.constantFrom('https://', 'http://'),
        fc.constantFrom('', 'www.', 'fr.'),
        fc.constantFrom('', '/', '?x=1', '#y', '/?x=1#y'),
        (slug, scheme, sub, tail) => {
          const normal = `https://www.linkedin.com/in/${slug}`;
          expect(normalizeProfileUrl(`${scheme}${sub}linkedin.com/in/${slug.toUpperCase()}${tail}`)).toBe(normal);
          expect(normalizeProfileUrl(normal)).toBe(normal);
        },
      ),
    );
  });
});
