import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * An SMTP server of our own (smtp-server), for what Postfix cannot easily be made to do: refuse
 * a login, or answer slowly. It accepts `user` with `password` and keeps what it receives.
 */
export interface TestSmtp {
  port: number;
  received: { from: string; to: string[]; raw: string }[];
  close(): Promise<void>;
}

export async function startTestSmtp(opts: { user: string; password: string; greetingDelayMs?: number; refuseRecipients?: boolean }): Promise<TestSmtp> {
  const received: TestSmtp['received'] = [];
  const server = new SMTPServer({
    disabledCommands: opts.refuseRecipients ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    authOptional: opts.refuseRecipients === true,
    allowInsecureAuth: true,
    logger: false,
    onConnect(_session, callback) {
      if (opts.greetingDelayMs) setTimeout(() => callback(), opts.greetingDelayMs);
      else callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.password) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (opts.refuseRecipients)
        callback(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
