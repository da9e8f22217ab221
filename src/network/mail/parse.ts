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
 * The fields of a message/delivery-status part are header blocks (RFC 3464 §2.1): a
 * per-message block, then one block per recipient. They are read as the header lines they are.
 */
function dsnFields(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    let last: string | null = null;
    for (const line of block.split('\n')) {
      if (/^\s/.test(line) && last) fields.set(last, `${fields.get(last)} ${line.trim()}`);
      else {
        const i = line.indexOf(':');
        if (i <= 0) continue;
        last = line.slice(0, i).trim().toLowerCase();
        fields.set(last, line.slice(i + 1).trim());
      }
    }
    if (fields.size > 0) blocks.push(fields);
  }
  return blocks;
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
