import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundEmail, InboundHeaders, MailboxServers } from '../../src/core/network/mail.js';
import { isPlainTextBody, parseInbound } from '../../src/network/mail/parse.js';
import { SmtpMail } from '../../src/network/mail/smtp.js';
import { requireTool } from '../optional.js';
import { freePort, mailServersInstalled, startMailServers, type MailServers } from './mail-servers.js';

const USER = 'reader@outreach.test';
const PASSWORD = 'reader-secret-4';
/** A second inbox, holding a message whose body the server cannot decode. */
const DAMAGED_USER = 'damaged@outreach.test';
/** A third inbox, where the server picks what can answer us before any header is read here. */
const PICKED_USER = 'picked@outreach.test';
const ASKED = '<eml_asked_1@outreach.test>';

const build = (options: Mail.Options): Promise<Buffer> =>
  new Promise((resolve, reject) => new MailComposer(options).compile().build((err, message) => (err ? reject(err) : resolve(message))));

const crlf = (lines: string[]): Buffer => Buffer.from(`${lines.join('\r\n')}\r\n`);

/** The inbox: replies of every common shape, and messages the plain-text way must leave to mailparser. */
async function corpus(): Promise<{ name: string; raw: Buffer; plain: boolean }[]> {
  const reply = { from: 'lea@example.com', to: USER, subject: 'Re: Engines', inReplyTo: ASKED, references: [ASKED], date: new Date('2026-11-23T10:00:00Z') };
  return [
    { name: 'short ASCII (7bit)', plain: true, raw: await build({ ...reply, text: 'Yes, Tuesday works.\n\nOn Mon, Sales wrote:\n> Would a call help?\n' }) },
    {
      name: 'long accented lines (quoted-printable)',
      plain: true,
      raw: await build({
        ...reply,
        text: `Très volontiers, mardi me convient. ${'Une phrase assez longue pour être coupée. '.repeat(6)}\n\n> Earlier words.\n`,
      }),
    },
    { name: 'base64', plain: true, raw: await build({ ...reply, text: 'Ja, gerne. Grüße\r\nLea\r\n', textEncoding: 'base64' }) },
    {
      name: 'encoded subject and display name, upper-case address, folded References',
      plain: true,
      raw: await build({
        ...reply,
        from: '"Léa Dupont" <Lea.Dupont@Example.COM>',
        subject: 'Re: Réunion à propos des moteurs',
        references: Array.from({ length: 9 }, (_, i) => `<thread-${i}-${'x'.repeat(20)}@example.org>`).concat(ASKED),
        text: 'Merci !\n',
      }),
    },
    {
      name: 'the simulator’s unsubscribe marker',
      plain: true,
      raw: await build({ ...reply, headers: { 'X-Outreach-Sim': 'Unsubscribe' }, text: 'unsubscribe\n' }),
    },
    {
      name: 'no Date, no Message-ID brackets, CRLF body',
      plain: true,
      raw: crlf([
        'From: lea@example.com',
        `To: ${USER}`,
        'Subject: Re: Engines',
        `In-Reply-To: ${ASKED}`,
        'Message-ID: bare-id@example.com',
        '',
        'Line one',
        'Line two',
      ]),
    },
    { name: 'an empty body', plain: true, raw: crlf(['From: lea@example.com', `To: ${USER}`, `In-Reply-To: ${ASKED}`, 'Message-ID: <empty@example.com>', '']) },
    {
      name: 'ISO-8859-1',
      plain: false,
      raw: Buffer.concat([
        crlf([
          'From: lea@example.com',
          `In-Reply-To: ${ASKED}`,
          'Message-ID: <latin@example.com>',
          'Content-Type: text/plain; charset=iso-8859-1',
          'Content-Transfer-Encoding: 8bit',
          '',
        ]),
        Buffer.from('Tr\xe8s bien, merci.\r\n', 'latin1'),
      ]),
    },
    {
      name: 'format=flowed',
      plain: false,
      raw: crlf([
        'From: lea@example.com',
        `In-Reply-To: ${ASKED}`,
        'Message-ID: <flowed@example.com>',
        'Content-Type: text/plain; charset=utf-8; format=flowed',
        '',
        'A line that was ',
        'wrapped by the sender.',
      ]),
    },
    { name: 'text and HTML', plain: false, raw: await build({ ...reply, text: 'Yes.\n', html: '<p>Yes.</p>' }) },
    { name: 'HTML only', plain: false, raw: await build({ ...reply, html: '<p>Yes, <b>Tuesday</b>.</p>' }) },
    {
      name: 'text as an attachment',
      plain: false,
      raw: crlf([
        'From: lea@example.com',
        `In-Reply-To: ${ASKED}`,
        'Message-ID: <att@example.com>',
        'Content-Type: text/plain',
        'Content-Disposition: attachment; filename=a.txt',
        '',
        'hello',
      ]),
    },
    {
      name: 'a delivery-status report',
      plain: false,
      raw: crlf([
        'From: MAILER-DAEMON@outreach.test',
        `To: ${USER}`,
        'Subject: Undelivered Mail Returned to Sender',
        'Message-ID: <dsn-1@outreach.test>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain',
        '',
        'Your message could not be delivered.',
        '--b1',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; outreach.test',
        '',
        'Final-Recipient: rfc822; gone@example.com',
        'Action: failed',
        'Status: 5.1.1',
        'Diagnostic-Code: smtp; 550 5.1.1 no such user',
        '',
        '--b1',
        'Content-Type: text/rfc822-headers',
        '',
        `Message-ID: ${ASKED}`,
        'To: gone@example.com',
        '--b1--',
      ]),
    },
  ];
}

describe.runIf(requireTool('Postfix and Dovecot (run as root)', mailServersInstalled()))('reading an inbox from Dovecot', () => {
  let servers: MailServers;
  let shapes: { name: string; raw: Buffer; plain: boolean }[];
  let mailbox: MailboxServers;
  const mail = new SmtpMail({ env: { READER_PW: PASSWORD } });
  const client = (user = USER) => new ImapFlow({ host: '127.0.0.1', port: servers.imapPort, secure: false, auth: { user, pass: PASSWORD }, logger: false });

  beforeAll(async () => {
    servers = await startMailServers({ [USER]: PASSWORD, [DAMAGED_USER]: PASSWORD, [PICKED_USER]: PASSWORD }, { bounceRelayPort: await freePort() });
    mailbox = {
      id: 'mbx_reader',
      address: USER,
      fromName: null,
      kind: 'smtp',
      smtp: null,
      imap: { host: '127.0.0.1', port: servers.imapPort, secure: false, user: USER, passwordEnv: 'READER_PW' },
    };
    shapes = await corpus();
    const c = client();
    await c.connect();
    try {
      // Each shape twice, then a newsletter that answers nothing we sent.
      for (const s of [...shapes, ...shapes]) await c.append('INBOX', s.raw);
      await c.append(
        'INBOX',
        await build({ from: 'news@lists.example.org', to: USER, subject: 'News', inReplyTo: '<elsewhere@example.org>', text: 'News.\n' }),
      );
    } finally {
      await c.logout();
    }
  });
  afterAll(() => servers?.stop());

  const read = async (wanted: (h: InboundHeaders) => boolean, batch: number) => {
    const messages: InboundEmail[] = [];
    let skipped = 0;
    let cursor = { uidValidity: null as string | null, lastUid: 0 };
    await mail.readSince(mailbox, cursor, { batch, batches: 100, now: Date.now(), wanted }, (b) => {
      messages.push(...b.messages);
      skipped += b.skipped;
      cursor = b.cursor;
    });
    return { messages, skipped, cursor };
  };

  it('the server’s structure sends the plain-text replies the short way and every other shape to mailparser', async () => {
    const c = client();
    await c.connect();
    try {
      await c.mailboxOpen('INBOX', { readOnly: true });
      const heads = await c.fetchAll(`1:${shapes.length}`, { uid: true, bodyStructure: true });
      expect(heads.map((m) => [shapes[m.seq - 1]!.name, isPlainTextBody(m.bodyStructure)])).toEqual(shapes.map((s) => [s.name, s.plain]));
    } finally {
      await c.logout();
    }
  });

  it('every message read is what mailparser makes of its whole source, whichever way it was read', async () => {
    const { messages, skipped, cursor } = await read((h) => h.report || h.inReplyTo === ASKED || h.references.includes(ASKED), 5);
    expect(skipped).toBe(1);
    expect(cursor.lastUid).toBe(2 * shapes.length + 1);
    expect(messages.map((m) => m.uid)).toEqual(Array.from({ length: 2 * shapes.length }, (_, i) => i + 1));
    const c = client();
    await c.connect();
    try {
      await c.mailboxOpen('INBOX', { readOnly: true });
      const sources = await c.fetchAll('1:*', { uid: true, source: true }, { uid: true });
      for (const m of messages) {
        const expected = await parseInbound(m.uid, sources.find((s) => s.uid === m.uid)!.source!);
        const name = shapes[(m.uid - 1) % shapes.length]!.name;
        expect({ name, ...m }).toEqual({ name, ...expected });
      }
    } finally {
      await c.logout();
    }
    const dsn = messages.find((m) => m.messageId === '<dsn-1@outreach.test>');
    expect(dsn?.bounce).toMatchObject({ recipients: ['gone@example.com'], status: '5.1.1', originalMessageId: ASKED });
    expect(messages.filter((m) => m.simUnsubscribe)).toHaveLength(2);
  });

  it('the headers asked of every message name what it answers and whether it is a report', async () => {
    const seen: InboundHeaders[] = [];
    const { messages, skipped } = await read((h) => {
      seen.push(h);
      return false;
    }, 200);
    expect(messages).toEqual([]);
    expect(skipped).toBe(2 * shapes.length + 1);
    expect(seen.filter((h) => h.report)).toHaveLength(2);
    expect(seen.filter((h) => h.inReplyTo === ASKED)).toHaveLength(2 * (shapes.length - 1));
    expect(seen.at(-1)).toEqual({ inReplyTo: '<elsewhere@example.org>', references: [], report: false });
    expect(seen[3]?.references).toHaveLength(10);
  });

  it('hands over each batch with its own cursor, oldest first, however many UIDs one command asked for', async () => {
    const taken: { uids: number[]; lastUid: number; skipped: number }[] = [];
    await mail.readSince(mailbox, { uidValidity: null, lastUid: 0 }, { batch: 2, batches: 3, now: Date.now(), wanted: (h) => h.inReplyTo === ASKED }, (b) =>
      taken.push({ uids: b.messages.map((m) => m.uid), lastUid: b.cursor.lastUid, skipped: b.skipped }),
    );
    // Three batches of two UIDs: the read stops there, the rest is left to the next call.
    expect(taken.map((t) => t.lastUid)).toEqual([2, 4, 6]);
    for (const t of taken) {
      expect(t.uids.every((uid) => uid > t.lastUid - 2 && uid <= t.lastUid)).toBe(true);
      expect(t.uids.length + t.skipped).toBe(2);
    }
    const wanted = shapes.slice(0, 6).map((s, i) => ({ uid: i + 1, asks: s.raw.toString('utf8').includes(`In-Reply-To: ${ASKED}`) }));
    expect(taken.flatMap((t) => t.uids)).toEqual(wanted.filter((w) => w.asks).map((w) => w.uid));
  });

  it('a body the server cannot decode is downloaded whole and read by mailparser, beside the plain replies', async () => {
    const damaged = crlf([
      'From: lea@example.com',
      `To: ${DAMAGED_USER}`,
      `In-Reply-To: ${ASKED}`,
      'Message-ID: <damaged@example.com>',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      'WWVz!!!*** not base64 at all ***',
    ]);
    const plain = shapes[0]!.raw;
    const c = client(DAMAGED_USER);
    await c.connect();
    try {
      for (const raw of [plain, damaged, plain]) await c.append('INBOX', raw);
    } finally {
      await c.logout();
    }
    const messages: InboundEmail[] = [];
    await mail.readSince(
      { ...mailbox, imap: { ...mailbox.imap!, user: DAMAGED_USER } },
      { uidValidity: null, lastUid: 0 },
      { batch: 200, batches: 1, now: Date.now(), wanted: () => true },
      (b) => messages.push(...b.messages),
    );
    expect(messages.map((m) => m.uid)).toEqual([1, 2, 3]);
    const expected = await Promise.all([plain, damaged, plain].map((raw, i) => parseInbound(i + 1, raw)));
    expect(messages).toEqual(expected);
  });

  it('with ourMessageIds, the server picks the messages that name one of ours or are reports; the rest are counted, never asked about', async () => {
    const dsn = shapes.find((x) => x.name === 'a delivery-status report')!.raw;
    const inbox = [
      await build({ from: 'news@lists.example.org', to: PICKED_USER, subject: 'News', inReplyTo: '<elsewhere@example.org>', text: 'News.\n' }),
      // Ours only deep in a folded References line, In-Reply-To someone else's.
      await build({
        from: 'lea@example.com',
        to: PICKED_USER,
        subject: 'Re: Engines',
        inReplyTo: '<a-colleague@example.org>',
        references: [...Array.from({ length: 8 }, (_, i) => `<thread-${i}-${'y'.repeat(24)}@example.org>`), ASKED],
        text: 'Forwarded to me; yes.\n',
      }),
      // Our prefix in the subject and body only: nothing of ours is answered.
      await build({ from: 'x@example.org', to: PICKED_USER, subject: `About ${ASKED}`, text: `${ASKED}\n` }),
      dsn,
      // Upper case: a Message-ID is matched whatever a client did to its case.
      crlf(['From: lea@example.com', `To: ${PICKED_USER}`, `In-Reply-To: ${ASKED.toUpperCase()}`, 'Message-ID: <upper@example.com>', '', 'Ok']),
      await build({ from: 'news@lists.example.org', to: PICKED_USER, subject: 'News 2', text: 'More news.\n' }),
    ];
    const c = client(PICKED_USER);
    await c.connect();
    try {
      for (const raw of inbox) await c.append('INBOX', raw);
    } finally {
      await c.logout();
    }
    const picked = { ...mailbox, imap: { ...mailbox.imap!, user: PICKED_USER } };
    const readAll = async (ourMessageIds: string | undefined) => {
      const asked: InboundHeaders[] = [];
      const messages: InboundEmail[] = [];
      const batches: { lastUid: number; skipped: number }[] = [];
      const wanted = (h: InboundHeaders) => {
        asked.push(h);
        return h.report || [h.inReplyTo, ...h.references].some((id) => id?.toLowerCase() === ASKED);
      };
      await mail.readSince(picked, { uidValidity: null, lastUid: 0 }, { batch: 2, batches: 10, now: Date.now(), wanted, ourMessageIds }, (b) => {
        messages.push(...b.messages);
        batches.push({ lastUid: b.cursor.lastUid, skipped: b.skipped });
      });
      return { asked, messages, batches };
    };
    const searched = await readAll('<eml_');
    const whole = await readAll(undefined);
    // Every header was asked about without the search; with it, only the three that can answer us.
    expect(whole.asked).toHaveLength(inbox.length);
    expect(searched.asked.map((h) => h.report || h.inReplyTo)).toEqual(['<a-colleague@example.org>', true, ASKED.toUpperCase()]);
    expect(searched.messages.map((m) => m.uid)).toEqual([2, 4, 5]);
    // The same messages, batches, cursors and counts either way.
    expect(searched.messages).toEqual(whole.messages);
    expect(searched.batches).toEqual(whole.batches);
    expect(searched.batches).toEqual([
      { lastUid: 2, skipped: 1 },
      { lastUid: 4, skipped: 1 },
      { lastUid: 6, skipped: 1 },
    ]);
  });
});
