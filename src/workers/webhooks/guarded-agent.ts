import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { refusalFor, type SsrfPolicy } from '../../core/webhooks/ssrf.js';

/*
 * The connection-time half of the SSRF guard: the rules (which addresses are refused) live in
 * core/webhooks/ssrf.ts; this applies them to the address a delivery actually connects to.
 */

/** Resolves a name to all of its addresses; injectable so tests can play DNS. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * A `net` lookup that refuses the whole name if any of its addresses is refused: a name that mixes
 * public and internal answers is treated as hostile rather than filtered.
 */
function guardedLookup(policy: SsrfPolicy, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const want = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const addresses = want === 0 ? all : all.filter((a) => a.family === want);
        const first = addresses[0];
        if (first === undefined) {
          callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        for (const a of addresses) {
          const refusal = refusalFor(a.address, hostname, policy);
          if (refusal !== null) return callback(refusal, '', 0);
        }
        if (options.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

export interface GuardedAgentOptions {
  resolve?: Resolver;
  connectTimeoutMs?: number;
}

/**
 * An undici Agent that checks the address it actually connects to: names are checked inside
 * the socket's DNS lookup (so a rebinding answer cannot slip in between check and connect), IP
 * literals before connecting, and the peer address once more after connecting.
 */
export function createGuardedAgent(policy: SsrfPolicy, options: GuardedAgentOptions = {}): Agent {
  const base = buildConnector({
    timeout: options.connectTimeoutMs ?? 10_000,
    lookup: guardedLookup(policy, options.resolve ?? systemResolver),
  });
  const connect: buildConnector.connector = (opts, callback) => {
    if (isIP(opts.hostname) !== 0) {
      const refusal = refusalFor(opts.hostname, opts.hostname, policy);
      if (refusal !== null) return callback(refusal, null);
    }
    base(opts, (...result) => {
      if (result[0] !== null) return callback(...result);
      const socket = result[1];
      const refusal = refusalFor(socket.remoteAddress ?? '', opts.hostname, policy);
      if (refusal === null) return callback(null, socket);
      socket.destroy();
      callback(refusal, null);
    });
  };
  return new Agent({ connect });
}
