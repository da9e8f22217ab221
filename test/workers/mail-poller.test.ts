import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { mailboxesToRead } from '../../src/core/email/inbox.js';
import { connectMailbox } from '../../src/core/mailboxes/mailbox.js';
import { insertMailbox } from '../../src/core/mailboxes/store.js';
import { MailPoller } from '../../src/workers/mail/worker.js';
import { engineSettings, MINUTE } from '../engine/helpers.js';
import { testCtx } from '../helpers.js';

/**
 * The mail poller's cadence: a real mailbox is read once a minute of real time; a simulated one
 * follows the simulated clock, as the engine does, so at --sim-speed 360 a bounce due a simulated
 * minute after its email is not seen six simulated hours late.
 */
describe('the mail poller', () => {
  it('waits a simulated minute between rounds, at least a second and at most a minute of real time', () => {
    const ctx = testCtx();
    const roundMs = (simSpeed?: number) => new MailPoller(ctx, engineSettings(), simSpeed === undefined ? {} : { simSpeed }).roundMs;
    expect(roundMs()).toBe(MINUTE);
    expect(roundMs(1)).toBe(MINUTE);
    expect(roundMs(10)).toBe(6_000);
    expect(roundMs(360)).toBe(1_000);
    expect(roundMs(0.5)).toBe(MINUTE);
  });

  it('reads the simulated mailboxes every round and a real one once its minute of real time has passed', async () => {
    const ctx = testCtx();
    // A password is set, so the login is tried and the connection refused (not a login refused, which would set the mailbox aside).
    process.env.OUTREACH_TEST_POLLER_PASSWORD = 'not-used';
    // Warnings name each mailbox whose inbox could not be read: the real one's server is not there.
    const failed: string[] = [];
    ctx.log = pino(
      { level: 'warn' },
      new Writable({
        write(line, _enc, done) {
          const entry = JSON.parse(String(line)) as { mailbox?: string };
          if (entry.mailbox) failed.push(entry.mailbox);
          done();
        },
      }),
    );
    const sim = (await connectMailbox(ctx, { name: 'Sim', address: 'sim@example.com', sim: true })).mailbox.id;
    const now = ctx.clock.now();
    insertMailbox(ctx, {
      id: 'mbx_real',
      name: 'Real',
      address: 'real@example.com',
      fromName: null,
      kind: 'smtp',
      smtpHost: '127.0.0.1',
      smtpPort: 1,
      smtpSecure: false,
      smtpUser: 'real@example.com',
      smtpPasswordEnv: 'OUTREACH_TEST_POLLER_PASSWORD',
      imapHost: '127.0.0.1',
      imapPort: 1,
      imapSecure: false,
      imapUser: 'real@example.com',
      imapPasswordEnv: 'OUTREACH_TEST_POLLER_PASSWORD',
      dailyLimit: 50,
      warmUpStartedAt: null,
      timeZone: null,
      workingHours: null,
      spacingSeconds: 60,
      status: 'connected',
      createdAt: now,
      updatedAt: now,
    });
    expect(mailboxesToRead(ctx)).toEqual(
      expect.arrayContaining([
        { id: sim, simulated: true },
        { id: 'mbx_real', simulated: false },
      ]),
    );

    // The fixture's own simulated mailbox, and the one connected here.
    const sims = mailboxesToRead(ctx)
      .filter((m) => m.simulated)
      .map((m) => m.id);
    expect(sims).toContain(sim);
    const poller = new MailPoller(ctx, engineSettings(), { simSpeed: 360 });
    const rounds: string[][] = [];
    // The rounds start() runs on its timer, driven one by one with the test's clock.
    const round = async () => {
      rounds.push([...(await poller.tick()).keys()]);
    };
    await round();
    expect(failed).toEqual(['mbx_real']);
    ctx.clock.advance(poller.roundMs);
    await round();
    ctx.clock.advance(poller.roundMs);
    await round();
    // Within the real mailbox's minute, only the simulated one was read again.
    expect(rounds).toEqual([sims, sims, sims]);
    expect(failed).toEqual(['mbx_real']);
    ctx.clock.advance(MINUTE);
    await round();
    expect(failed).toEqual(['mbx_real', 'mbx_real']);
    // round() (the CLI's and the tests' one pass) reads every mailbox, whenever it is called.
    await poller.round();
    expect(failed).toEqual(['mbx_real', 'mbx_real', 'mbx_real']);
    await poller.stop();
  });
});
