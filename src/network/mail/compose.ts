import type { MailboxServers, OutgoingEmail } from '../../core/network/mail.js';

/**
 * The message nodemailer builds for an outgoing email, the same for the real server (sendMail)
 * and the simulator (MailComposer): the mailbox's sender, the core's Message-ID and headers.
 */
export const messageOf = (mailbox: Pick<MailboxServers, 'address' | 'fromName'>, email: OutgoingEmail) => ({
  from: mailbox.fromName ? { name: mailbox.fromName, address: mailbox.address } : mailbox.address,
  to: email.to,
  subject: email.subject,
  text: email.text,
  messageId: email.messageId,
  headers: email.headers,
  // A reply keeps the thread: mail clients group by these (RFC 5322 section 3.6.4).
  ...(email.inReplyTo ? { inReplyTo: email.inReplyTo } : {}),
  ...(email.references && email.references.length > 0 ? { references: email.references } : {}),
});
