/**
 * `--help` after any command or subcommand. The usage text is the single source: each entry of
 * the command list (a line indented two spaces, then its more deeply indented continuation)
 * is keyed by its leading words (`keys create`, `webhooks rotate-secret`), so a command added
 * to the list gets its help with no extra code.
 */

export interface UsageEntry {
  /** The command words the entry documents, e.g. ['keys', 'create']. */
  words: string[];
  text: string;
}

/** The entries of a usage text's command list. */
export function usageEntries(usage: string): UsageEntry[] {
  const entries: UsageEntry[] = [];
  for (const line of usage.split('\n')) {
    if (/^ {2}\S/.test(line)) {
      const words: string[] = [];
      for (const token of line.trim().split(/\s+/)) {
        // Words are lower-case command names; the first flag, placeholder or bracket ends them.
        if (!/^[a-z][a-z0-9-]*$/.test(token)) break;
        words.push(token);
        if (words.length === 2) break;
      }
      entries.push({ words, text: line });
    } else if (/^ {3,}\S/.test(line) && entries.length > 0) {
      entries[entries.length - 1]!.text += `\n${line}`;
    } else if (line.trim() === '' || !line.startsWith(' ')) {
      // A blank or unindented line ends the entry before it, so a footer is not swallowed.
      entries.push({ words: [], text: '' });
    }
  }
  return entries.filter((e) => e.words.length > 0);
}

/** Where `--help`/`-h` appears among a command's own arguments (before any `--`). */
export function wantsHelp(args: string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/**
 * The help for `outreach <command> [sub] --help`, or null when the usage text documents no
 * such command (the command itself then reports the unknown name as it always does).
 */
export function commandHelp(usage: string, command: string, args: string[], footer: string): string | null {
  // A subcommand comes first (`keys create --help`); a later word is a flag's value (`--db PATH`).
  const sub = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
  const entries = usageEntries(usage).filter((e) => e.words[0] === command);
  if (entries.length === 0) return null;
  // A subcommand narrows the help only when it is one; `keys --help` lists every `keys` entry.
  const narrowed = sub !== undefined ? entries.filter((e) => e.words[1] === sub) : [];
  const shown = narrowed.length > 0 ? narrowed : sub !== undefined && entries.some((e) => e.words.length > 1) ? null : entries;
  if (shown === null) return null;
  const body = shown.map((e) => e.text).join('\n');
  return `Usage: npx outreach ${command}${narrowed.length > 0 ? ` ${sub}` : ''} [options]\n\n${body}${footer ? `\n\n${footer}` : ''}`;
}
