/** An addr-spec as people write it: a dot-atom local part, `@`, and a domain of letter-digit labels. */
const ADDR_SPEC =
  /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)+$/u;
/** `Name <address>`, as an address book exports it. */
const NAMED = /^[^<>@\r\n]*<([^<>\s]+)>$/;

/**
 * The one address a lead's `email` field names, lower-cased: `kim@example.com`, or the address
 * of `Kim Lee <kim@example.com>`. Anything else is no address: a list (`a@x.com, b@x.com`, which
 * the mail client would send to both), a malformed value, or one carrying a line break (a header
 * smuggled into the message). The field is the customer's free text; this is what gets mailed.
 */
export function mailAddressOf(raw: string | null | undefined): string | null {
  const text = raw?.trim() ?? '';
  if (text === '' || /[\r\n]/.test(text)) return null;
  const address = NAMED.exec(text)?.[1] ?? text;
  return ADDR_SPEC.test(address) ? address.toLowerCase() : null;
}
