import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const POSTFIX = '/usr/sbin/postfix';
export const DOVECOT = '/usr/sbin/dovecot';
export const mailServersInstalled = (): boolean => existsSync(POSTFIX) && existsSync(DOVECOT) && process.getuid?.() === 0;

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface MailServers {
  smtpPort: number;
  imapPort: number;
  /** Mail to any address at this domain is accepted and then bounced by Postfix (a DSN to the sender). */
  bounceDomain: string;
  dir: string;
  logs(): string;
  stop(): void;
}

/**
 * Debian's Postfix and Dovecot on loopback, high ports, a test domain (outreach.test) and every
 * file in a temp dir: no system configuration is read or changed. Postfix takes mail for the
 * test domain (SMTP AUTH through Dovecot's auth service) and delivers it with its virtual agent
 * into Maildirs that Dovecot serves over IMAP; mail to `bounce.test` is accepted, relayed to
 * `bounceRelayPort` (a server that refuses every recipient) and so bounced by Postfix: the
 * sender gets Postfix's own delivery-status report.
 */
export async function startMailServers(users: Record<string, string>, opts: { bounceRelayPort: number }): Promise<MailServers> {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-mail-'));
  chmodSync(dir, 0o755);
  const [smtpPort, imapPort] = [await freePort(), await freePort()];
  const mail = join(dir, 'mail');
  mkdirSync(mail);
  chmodSync(mail, 0o777);
  const nobody = 65534;
  // Dovecot: passwords in a passwd-file, Maildirs under mail/<domain>/<user>, IMAP on imapPort.
  const run = join(dir, 'dovecot-run');
  writeFileSync(
    join(dir, 'users'),
    Object.entries(users)
      .map(([u, p]) => `${u}:{PLAIN}${p}\n`)
      .join(''),
  );
  chmodSync(join(dir, 'users'), 0o644);
  writeFileSync(
    join(dir, 'dovecot.conf'),
    `base_dir = ${run}
state_dir = ${join(dir, 'dovecot-state')}
log_path = ${join(dir, 'dovecot.log')}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${mail}/%d/%n/Maildir
# A throwaway mailbox in a temporary directory: no fsync per delivered or appended message.
mail_fsync = never
first_valid_uid = 100
default_internal_user = dovecot
default_login_user = dovenull
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${join(dir, 'users')}
}
userdb {
  driver = static
  args = uid=${nobody} gid=${nobody} home=${mail}/%d/%n
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${imapPort}
  }
  inet_listener imaps {
    port = 0
  }
}
service auth {
  unix_listener auth-postfix {
    mode = 0666
  }
}
`,
  );
  // Postfix: its own config dir, queue and data dirs; smtpd on smtpPort, no chroot.
  const etc = join(dir, 'postfix');
  mkdirSync(etc);
  const maps = Object.keys(users)
    .map((u) => `${u}=${u.split('@')[1]}/${u.split('@')[0]}/Maildir/`)
    .join(', ');
  writeFileSync(
    join(etc, 'main.cf'),
    `compatibility_level = 3.6
queue_directory = ${join(dir, 'queue')}
data_directory = ${join(dir, 'data')}
meta_directory = ${etc}
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
shlib_directory = /usr/lib/postfix
mail_owner = postfix
setgid_group = postdrop
myhostname = mx.outreach.test
mydomain = outreach.test
myorigin = outreach.test
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
maillog_file_prefixes = ${dir}
maillog_file = ${join(dir, 'postfix.log')}
virtual_mailbox_domains = outreach.test
virtual_mailbox_base = ${mail}
virtual_mailbox_maps = inline:{ ${maps} }
virtual_uid_maps = static:${nobody}
virtual_gid_maps = static:${nobody}
virtual_minimum_uid = 100
relay_domains = bounce.test
transport_maps = inline:{ { bounce.test = smtp:[127.0.0.1]:${opts.bounceRelayPort} } }
smtp_tls_security_level = none
smtpd_sasl_auth_enable = yes
smtpd_sasl_type = dovecot
smtpd_sasl_path = ${join(run, 'auth-postfix')}
smtpd_relay_restrictions = permit_sasl_authenticated, permit_mynetworks, reject_unauth_destination
bounce_queue_lifetime = 0
maximal_queue_lifetime = 0
delay_warning_time = 0
smtp_dns_support_level = disabled
disable_dns_lookups = yes
biff = no
`,
  );
  writeFileSync(
    join(etc, 'master.cf'),
    `127.0.0.1:${smtpPort} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`,
  );
  writeFileSync(join(etc, 'postfix-files'), readFileSync('/etc/postfix/postfix-files'));
  if (existsSync('/etc/postfix/dynamicmaps.cf')) writeFileSync(join(etc, 'dynamicmaps.cf'), readFileSync('/etc/postfix/dynamicmaps.cf'));
  mkdirSync(join(dir, 'queue'), { mode: 0o755 });
  mkdirSync(join(dir, 'data'), { mode: 0o700 });
  execFileSync('chown', ['postfix', join(dir, 'data')]);
  const logs = () =>
    ['postfix.log', 'dovecot.log']
      .map((f) => join(dir, f))
      .filter(existsSync)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
  try {
    execFileSync(DOVECOT, ['-c', join(dir, 'dovecot.conf')], { stdio: 'ignore', timeout: 30_000 });
    execFileSync(POSTFIX, ['-c', etc, 'start'], { stdio: 'ignore', timeout: 30_000 });
  } catch (err) {
    const e = err as { stderr?: Buffer };
    throw new Error(`mail servers did not start: ${e.stderr?.toString() ?? String(err)}\n${logs()}`);
  }
  return {
    smtpPort,
    imapPort,
    bounceDomain: 'bounce.test',
    dir,
    logs,
    stop() {
      try {
        execFileSync(POSTFIX, ['-c', etc, 'stop'], { stdio: 'ignore', timeout: 30_000 });
      } catch {}
      try {
        execFileSync(DOVECOT, ['-c', join(dir, 'dovecot.conf'), 'stop'], { stdio: 'ignore', timeout: 30_000 });
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
