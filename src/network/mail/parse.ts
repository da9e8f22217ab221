import { simpleParser, type ParsedMail } from 'mailparser';
import type { BounceReport, InboundEmail } from '../../core/network/mail.js';

/**
 * Reads one raw message with mailparser into what core matches: its ids, its text and, when
 * it is a delivery-status report (RFC 3464), which recipients failed and which message bounced.
 * Every byte of MIME is mailparser's; this only picks fields.
 */
export async function parseInbound(uid: number, raw: Buffer | string): Promise<InboundEmail> {
  const mail = await simpleParser(raw, { keepDeliveryStatus: true, skipHtmlToText: false, skipTextToHtml: true, skipImageLinks: true });
  const references = mail.references === undefined ? [] : Array.isArray(mail.references) ? mail.references : mail.references.split(/\s+/).filter(Boolean);
  return {
    uid,
    messageId: mail.messageId ?? null,
    inReplyTo: firstId(mail.inReplyTo),
    references,
    from: mail.from?.value[0]?.address?.toLowerCase() ?? null,
    subject: mail.subject ?? null,
    text: mail.text ?? '',
    date: mail.date ? mail.date.getTime() : null,
    bounce: await bounceOf(mail),
    simUnsubscribe: headerText(mail, 'x-outreach-sim') === 'unsubscribe',
  };
}

const firstId = (value: string | undefined): string | null => {
  const m = value?.match(/<[^>]+>/);
  return m ? m[0] : (value?.trim() ?? null) || null;
};

function headerText(mail: ParsedMail, name: string): string | null {
  const v = mail.headers.get(name);
  return typeof v === 'string' ? v.trim().toLowerCase() : null;
}

/**
 * One block of header lines: each field's values in order, by lower-cased name, a folded line
 * joined to its field's value with one space. Nothing here decodes MIME words.
 */
function headerLines(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  let last: string[] | null = null;
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    if (/^\s/.test(line) && last) last[last.length - 1] = `${last.at(-1)} ${line.trim()}`;
    else {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const name = line.slice(0, i).trim().toLowerCase();
      last = fields.get(name) ?? [];
      last.push(line.slice(i + 1).trim());
      fields.set(name, last);
    }
  }
  return fields;
}

/**
 * The fields of a message/delivery-status part are header blocks (RFC 3464 §2.1): a
 * per-message block, then one block per recipient. They are read as the header lines they are;
 * a field given twice in a block is read as its last.
 */
function dsnFields(text: string): Map<string, string>[] {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => new Map([...headerLines(block)].map(([name, values]) => [name, values.at(-1)!])))
    .filter((fields) => fields.size > 0);
}

const addressOf = (field: string | undefined): string | null => {
  if (!field) return null;
  const value = field.includes(';') ? field.slice(field.indexOf(';') + 1) : field;
  return value.trim().replace(/^<|>$/g, '').toLowerCase() || null;
};

async function bounceOf(mail: ParsedMail): Promise<BounceReport | null> {
  const status = mail.attachments.find((a) => a.contentType.toLowerCase() === 'message/delivery-status');
  if (!status) return null;
  const blocks = dsnFields(status.content.toString('utf8'));
  const failed = blocks.filter((b) => b.has('final-recipient') && (b.get('action') ?? '').toLowerCase() === 'failed');
  if (failed.length === 0) return null;
  const recipients = failed.map((b) => addressOf(b.get('final-recipient'))).filter((a): a is string => a !== null);
  const returned = mail.attachments.find((a) => ['message/rfc822', 'text/rfc822-headers', 'message/global'].includes(a.contentType.toLowerCase()));
  let originalMessageId: string | null = null;
  if (returned) {
    const original = await simpleParser(returned.content, { skipTextToHtml: true, skipImageLinks: true });
    originalMessageId = original.messageId ?? null;
  }
  const first = failed[0]!;
  return {
    recipients,
    status: first.get('status')?.split(/\s/)[0] ?? null,
    diagnostic: first.get('diagnostic-code') ?? null,
    originalMessageId,
  };
}

/**
 * A header block as an IMAP server returns it for `BODY.PEEK[HEADER.FIELDS (…)]`, read as
 * headerLines reads one. Used to pick messages and to read a few plain fields (ids, a marker)
 * before anything is downloaded.
 */
export const headerFields = (block: Buffer | undefined): Map<string, string[]> => (block ? headerLines(block.toString('utf8')) : new Map());

/** The message ids (`<…>`) a header value names: a References line is a list of them. */
export const messageIdsIn = (value: string | undefined): string[] => value?.match(/<[^<>\s]+>/g) ?? [];

/** What the server says of a message's structure (IMAP BODYSTRUCTURE, as imapflow returns it). */
export interface PartStructure {
  type: string;
  parameters?: Record<string, string> | undefined;
  encoding?: string | undefined;
  disposition?: string | undefined;
  childNodes?: PartStructure[] | undefined;
}

/**
 * Whether a message's whole text is its one body part taken as it is: a single-part
 * `text/plain`, inline, in UTF-8 or ASCII, not `format=flowed`. For such a message mailparser's
 * `text` is that part's bytes, transfer encoding removed, read as UTF-8 with line ends made
 * `\n`, so the server may remove the transfer encoding (IMAP BINARY) and mailparser is not
 * needed. Anything else (multipart, HTML, another charset, flowed text, an attachment, a report)
 * is parsed by mailparser.
 */
export function isPlainTextBody(structure: PartStructure | undefined): boolean {
  if (!structure || structure.childNodes?.length) return false;
  if (structure.type.toLowerCase() !== 'text/plain') return false;
  if (structure.disposition && structure.disposition.toLowerCase() !== 'inline') return false;
  const params = structure.parameters ?? {};
  const charset = (params.charset ?? 'utf-8').toLowerCase().replace(/[^a-z0-9]+/g, '');
  if (!['ascii', 'usascii', 'utf8'].includes(charset)) return false;
  if ((params.format ?? '').toLowerCase() === 'flowed') return false;
  return ['7bit', '8bit', 'binary', 'quoted-printable', 'base64'].includes((structure.encoding ?? '7bit').toLowerCase());
}

/** What the server parsed of a message (IMAP ENVELOPE, as imapflow returns it). */
export interface EnvelopeFields {
  date?: Date | string | undefined;
  subject?: string | undefined;
  from?: { address?: string | undefined }[] | undefined;
  messageId?: string | undefined;
  inReplyTo?: string | undefined;
}

/** mailparser's reading of a Message-ID or In-Reply-To value: `<` and `>` added when missing. */
const idFormat = (value: string): string | undefined => {
  if (value.length === 0) return undefined;
  return `${value.startsWith('<') ? '' : '<'}${value}${value.endsWith('>') ? '' : '>'}`;
};

/**
 * The inbound message of a plain-text reply (see isPlainTextBody) from what the server gave:
 * its envelope, its References and X-Outreach-Sim header lines and its body with the transfer
 * encoding removed. Each field is read as parseInbound reads it through mailparser, so both
 * ways give the same message; null when a field would need more than that (an encoded word in
 * an id, a repeated header, an unreadable date), and the message is then parsed by mailparser.
 */
export function plainTextInbound(uid: number, envelope: EnvelopeFields | undefined, headers: Buffer | undefined, body: Buffer): InboundEmail | null {
  const env = envelope ?? {};
  const fields = headerFields(headers);
  const references = fields.get('references') ?? [];
  const sim = fields.get('x-outreach-sim') ?? [];
  if (references.length > 1 || sim.length > 1) return null;
  const ids = [env.messageId ?? '', env.inReplyTo ?? '', references[0] ?? ''];
  if (ids.some((v) => v.includes('=?'))) return null;
  if (typeof env.date === 'string') return null;
  return {
    uid,
    messageId: idFormat(env.messageId?.trim() ?? '') ?? null,
    inReplyTo: firstId(idFormat(env.inReplyTo?.trim() ?? '')),
    references: (references[0] ?? '')
      .split(/\s+/)
      .map((v) => idFormat(v))
      .filter((v): v is string => v !== undefined),
    from: env.from?.[0]?.address?.toLowerCase() ?? null,
    subject: env.subject ?? null,
    text: body.toString('utf8').replace(/\r?\n/g, '\n'),
    date: env.date ? env.date.getTime() : null,
    bounce: null,
    simUnsubscribe: sim.length === 1 && sim[0]!.trim().toLowerCase() === 'unsubscribe',
  };
}
