import { UntrustedBlock } from '../../shared/components/Untrusted.js';
import { formatWhen } from '../../shared/format.js';
import type { ConversationMessage } from '../../shared/types.js';

const SENDER: Record<string, string> = { sequence: 'Sequence', agent: 'Agent', operator: 'You', api: 'API', lead: 'Lead', mail_server: 'Mail server' };
/** How each channel reads: a thread mixes LinkedIn messages and emails when a sequence does. */
export const CHANNEL_LABEL: Record<ConversationMessage['channel'], string> = { linkedin: 'LinkedIn', email: 'Email' };

/** A small mark naming the channel, the same in the thread list and beside each message. */
export function ChannelBadge({ channel }: { channel: ConversationMessage['channel'] }) {
  return <span className={`o-badge d-channel d-channel-${channel}`}>{CHANNEL_LABEL[channel]}</span>;
}

/** A conversation's messages, oldest first, each with who sent it and when: the inbox's thread and the lead page's. */
export function MessageThread({ messages }: { messages: readonly ConversationMessage[] }) {
  // A thread on LinkedIn alone needs no mark on every line; once email is in it, each message says its channel.
  const mixed = messages.some((m) => m.channel !== 'linkedin');
  return (
    <ol className="o-thread" aria-label="Messages, oldest first">
      {messages.map((m, i) => (
        <li key={m.id ?? i} className={m.sender === 'mail_server' ? 'o-msg o-msg-notice' : m.direction === 'inbound' ? 'o-msg o-msg-in' : 'o-msg o-msg-out'}>
          <span className="o-msg-meta">
            {mixed ? (
              <>
                <ChannelBadge channel={m.channel} />{' '}
              </>
            ) : null}
            {m.sender === 'mail_server' ? <span className="o-badge o-badge-failed">Bounced</span> : null}
            {m.sender === 'mail_server' ? ' ' : null}
            {SENDER[m.sender] ?? m.sender} · <time dateTime={m.at}>{formatWhen(m.at)}</time>
            {m.bouncedAt ? (
              <>
                {' '}
                · <span className="o-badge o-badge-failed">Not delivered</span> bounced <time dateTime={m.bouncedAt}>{formatWhen(m.bouncedAt)}</time>
              </>
            ) : null}
          </span>
          <UntrustedBlock as="span">{m.text}</UntrustedBlock>
        </li>
      ))}
    </ol>
  );
}
