import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';
import { mailServersInstalled, startMailServers } from '../../test/email/mail-servers.js';
import { loadDist } from './app.js';
import { freePort } from './proc.js';
import { median } from './stats.js';
import type * as Clock from '../../src/core/clock.js';
import type * as Context from '../../src/core/context.js';
import type { Ctx } from '../../src/core/context.js';
import type * as Inbox from '../../src/core/email/inbox.js';
import type * as Mailbox from '../../src/core/mailboxes/mailbox.js';
import type * as MailboxStore from '../../src/core/mailboxes/store.js';
import type * as Settings from '../../src/core/outreach/settings.js';
import type * as SeedFile from '../../src/core/seed/file.js';
import type * as SeedLoad from '../../src/core/seed/load.js';
import type * as Log from '../../src/log.js';
import type * as Server from '../../src/server.js';
import type * as Worker from '../../src/workers/mail/worker.js';

/**
 * Reading an inbox to match replies (issue 37): Debian's Dovecot on loopback (the harness of the
 * email end-to-end test) holds 10,000 messages put there by IMAP APPEND, one in ten a reply to an
 * email the bench recorded as sent (its In-Reply-To names that email's Message-ID), the rest mail
 * that answers nothing we sent. The product's path is the mail poller's: `MailPoller.round()`
 * until the inbox is read (each round one connection reading batches of 200 messages, up to 50
 * of them, asked for ten batches a command; the server searches each span for the messages whose
 * In-Reply-To or References contain `<eml_`, how every Message-ID we send starts, or that are
 * reports, and only those have their In-Reply-To, References and Content-Type lines read and
 * matched against the sent Message-IDs, the rest counted and left alone; of the matching messages the envelope, structure and
 * first body part in one command, that part taken as the text of a plain-text reply, any other
 * shape downloaded whole for mailparser; each batch recorded in one transaction), into a database of its own per turn that
 * has not seen the replies, so every turn records the 1,000 replies (a reply read before is
 * known by its Message-ID and left alone). The baseline is imapflow alone fetching the same
 * UIDs' sources on one connection. Rounds take turns; the figure is the median of each side.
 * Target: the product within 2× of the baseline.
 */

export const IMAP_MESSAGES = 10_000;
export const IMAP_TARGET_RATIO = 2;

export interface ImapBench {
  messages: number;
  rounds: number;
  /** Median ms to read and match every message through the mail poller. */
  pollerMs: number;
  /** Median ms for imapflow alone to fetch the same messages' sources. */
  imapflowMs: number;
  ratio: number;
  /**
   * Median ms to read the inbox and match the replies, without recording them: the mail
   * adapter's read with the poller's options and filter, each message it hands over matched to
   * the email it answers (core's `answeredSend`), nothing written.
   */
  matchMs: number;
  matchRatio: number;
  /** Messages the read-and-match side matched to an email we sent. */
  matched: number;
  /** Poller rounds (one IMAP connection each, up to 50 batches of 200) a full read took. */
  pollerRounds: number;
  /** What the last full read matched. */
  replies: number;
  ignored: number;
  /** Time to APPEND the messages, ms (setup, not judged). */
  appendMs: number;
}

const START = Date.parse('2026-11-23T10:00:00Z');
const USER = 'bench@outreach.test';
const PASSWORD = 'bench imap password';
const CAMPAIGN = 'cmp_imap';
const MAILBOX = 'mbx_bench';
const REPLY_EVERY = 10;

const build = (composer: MailComposer): Promise<Buffer> =>
  new Promise((resolve, reject) => composer.compile().build((err, message) => (err ? reject(err) : resolve(message))));

export async function runImap(root: string, opts: { messages?: number; rounds?: number } = {}, say: (msg: string) => void = () => {}): Promise<ImapBench> {
  if (!mailServersInstalled()) throw new Error('imap: needs Debian Postfix and Dovecot and root (as the email end-to-end test does)');
  const total = opts.messages ?? IMAP_MESSAGES;
  const rounds = opts.rounds ?? 3;
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  const clock = await load<typeof Clock>('core/clock.js');
  const context = await load<typeof Context>('core/context.js');
  const server = await load<typeof Server>('server.js');
  const log = await load<typeof Log>('log.js');
  const seedFile = await load<typeof SeedFile>('core/seed/file.js');
  const seedLoad = await load<typeof SeedLoad>('core/seed/load.js');
  const store = await load<typeof MailboxStore>('core/mailboxes/store.js');
  const settingsOf = await load<typeof Settings>('core/outreach/settings.js');
  const worker = await load<typeof Worker>('workers/mail/worker.js');
  const inbox = await load<typeof Inbox>('core/email/inbox.js');
  const mailbox = await load<typeof Mailbox>('core/mailboxes/mailbox.js');

  const servers = await startMailServers({ [USER]: PASSWORD }, { bounceRelayPort: await freePort() });
  const dir = mkdtempSync(join(os.tmpdir(), 'outreach-imap-'));
  process.env.OUTREACH_BENCH_IMAP_PASSWORD = PASSWORD;
  try {
    const replies = Math.ceil(total / REPLY_EVERY);
    const imap = { host: '127.0.0.1', port: servers.imapPort, secure: false, user: USER, passwordEnv: 'OUTREACH_BENCH_IMAP_PASSWORD' };
    // The emails the replies answer, as sendEmail records them before the send.
    const messageIdOf = (i: number) => `<eml_bench_${i}@outreach.test>`;
    // A database holding the workspace, its leads and the emails sent, none of the replies read yet.
    let databases = 0;
    const freshContext = (): Ctx => {
      const fake = new clock.FakeClock(START);
      const ctx = server.createContext({ dbPath: join(dir, `imap-${databases++}.db`), env: 'production', config: {} }, log.silentLogger(), fake, fake);
      seedLoad.loadWorkspace(
        ctx,
        seedFile.WorkspaceFile.parse({
          apiKeys: [{ key: `sk_test_${'i'.repeat(32)}`, name: 'bench' }],
          credits: { credits: 10_000_000, topUpCredits: 0, lookalikeCredits: 0, lookalikeTopUpCredits: 0 },
          mailboxes: [{ id: MAILBOX, name: 'Bench', address: USER, smtp: { ...imap, port: servers.smtpPort }, imap }],
          campaigns: [
            {
              id: CAMPAIGN,
              name: 'Inbox',
              status: 'READY_TO_SEND',
              leads: Array.from({ length: replies }, (_, i) => ({
                id: `lead_imap_${i}`,
                networkUrl: `https://www.linkedin.com/in/imap-${i}`,
                firstName: 'Lea',
                email: `lea${i}@example.com`,
              })),
            },
          ],
        }),
        { reset: false },
      );
      ctx.db.$client.transaction(() => {
        for (let i = 0; i < replies; i++)
          store.insertEmailSend(ctx, {
            id: `eml_bench_${i}`,
            messageId: messageIdOf(i),
            mailboxId: MAILBOX,
            leadId: `lead_imap_${i}`,
            campaignId: CAMPAIGN,
            address: `lea${i}@example.com`,
            subject: `A question ${i}`,
            state: 'sent',
            at: START,
          });
      })();
      return ctx;
    };
    const ctx = freshContext();

    // The inbox: every tenth message a reply (quoting what it answers), the rest answer nothing we sent.
    say(`imap: appending ${total.toLocaleString('en-US')} messages to Dovecot`);
    const appendStart = performance.now();
    const client = new ImapFlow({ host: '127.0.0.1', port: servers.imapPort, secure: false, auth: { user: USER, pass: PASSWORD }, logger: false });
    await client.connect();
    try {
      for (let n = 0; n < total; n++) {
        const reply = n % REPLY_EVERY === 0 ? n / REPLY_EVERY : null;
        const raw = await build(
          new MailComposer(
            reply !== null
              ? {
                  from: `lea${reply}@example.com`,
                  to: USER,
                  subject: `Re: A question ${reply}`,
                  inReplyTo: messageIdOf(reply),
                  references: [messageIdOf(reply)],
                  date: new Date(START + n * 1000),
                  text: `Yes, Tuesday works for me.\n\nOn Mon, 23 Nov 2026, Bench wrote:\n> Would a short call help?\n> ${'Earlier words. '.repeat(10)}\n`,
                }
              : {
                  from: `news${n % 97}@lists.example.org`,
                  to: USER,
                  subject: `Newsletter ${n}`,
                  messageId: `<news-${n}@lists.example.org>`,
                  inReplyTo: `<elsewhere-${n}@example.org>`,
                  date: new Date(START + n * 1000),
                  text: `${'This week in our field: a paragraph of news. '.repeat(8)}\n(${n})\n`,
                },
          ),
        );
        await client.append('INBOX', raw, ['\\Seen']);
      }
    } finally {
      await client.logout();
    }
    const appendMs = performance.now() - appendStart;
    say(`imap: appended in ${(appendMs / 1000).toFixed(1)} s`);

    const settings = settingsOf.resolveEngineSettings({ workingHours: null });
    let last = { rounds: 0, replies: 0, ignored: 0 };
    const viaPoller = async (): Promise<number> => {
      // From the start of the inbox, as a mailbox connected today reads it, into a database that
      // has not seen these replies: a reply read before is known by its Message-ID and not
      // recorded again, so a turn on the same database would record nothing.
      const turn = freshContext();
      const poller = new worker.MailPoller(turn, settings);
      try {
        const t0 = performance.now();
        let read = 0;
        const seen = { rounds: 0, replies: 0, ignored: 0 };
        while (read < total) {
          const r = (await poller.round()).get(MAILBOX);
          if (!r || r.read === 0) throw new Error(`imap: the poller stopped after ${read} of ${total} messages`);
          if (r.failed > 0) throw new Error(`imap: the poller failed to record ${r.failed} messages`);
          read += r.read;
          seen.rounds++;
          seen.replies += r.replies;
          seen.ignored += r.ignored;
        }
        const ms = performance.now() - t0;
        if (seen.replies !== replies) throw new Error(`imap: the poller recorded ${seen.replies} of ${replies} replies`);
        last = seen;
        return ms;
      } finally {
        await poller.stop();
        context.closeContext(turn);
      }
    };
    let matched = 0;
    const viaMatch = async (): Promise<number> => {
      const servers_ = mailbox.serversOf(mailbox.requireMailbox(ctx, MAILBOX));
      const t0 = performance.now();
      let cursor = { uidValidity: null as string | null, lastUid: 0 };
      let read = 0;
      let found = 0;
      while (read < total) {
        const before = read;
        await mailbox.mailOf(ctx).readSince(servers_, cursor, inbox.inboxReadOptions(ctx), (batch) => {
          read += batch.skipped + batch.messages.length;
          for (const m of batch.messages) if (inbox.answeredSend(ctx, m) !== undefined) found++;
          cursor = batch.cursor;
        });
        if (read === before) throw new Error(`imap: the read stopped after ${read} of ${total} messages`);
      }
      const ms = performance.now() - t0;
      matched = found;
      return ms;
    };
    const viaImapflow = async (): Promise<number> => {
      const t0 = performance.now();
      const c = new ImapFlow({
        host: '127.0.0.1',
        port: servers.imapPort,
        secure: false,
        auth: { user: USER, pass: PASSWORD },
        logger: false,
        disableAutoIdle: true,
      });
      await c.connect();
      let bytes = 0;
      let count = 0;
      try {
        await c.mailboxOpen('INBOX', { readOnly: true });
        for await (const m of c.fetch('1:*', { uid: true, source: true }, { uid: true })) {
          bytes += m.source?.length ?? 0;
          count++;
        }
      } finally {
        await c.logout();
      }
      if (count !== total || bytes === 0) throw new Error(`imap: imapflow fetched ${count} of ${total} messages`);
      return performance.now() - t0;
    };

    // One untimed turn each: Dovecot's index and caches warm for both sides alike.
    await viaImapflow();
    await viaPoller();
    await viaMatch();
    const poller_: number[] = [];
    const bare: number[] = [];
    const match: number[] = [];
    for (let r = 0; r < rounds; r++) {
      say(`imap: round ${r + 1} of ${rounds}`);
      if (r % 2 === 0) {
        bare.push(await viaImapflow());
        poller_.push(await viaPoller());
        match.push(await viaMatch());
      } else {
        match.push(await viaMatch());
        poller_.push(await viaPoller());
        bare.push(await viaImapflow());
      }
    }
    context.closeContext(ctx);
    const pollerMs = median(poller_);
    const imapflowMs = median(bare);
    return {
      messages: total,
      rounds,
      pollerMs,
      imapflowMs,
      ratio: pollerMs / imapflowMs,
      matchMs: median(match),
      matchRatio: median(match) / imapflowMs,
      matched,
      pollerRounds: last.rounds,
      replies: last.replies,
      ignored: last.ignored,
      appendMs,
    };
  } finally {
    servers.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
