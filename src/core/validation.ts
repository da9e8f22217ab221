import type { z } from 'zod';
import { ApiError } from './errors.js';

/** `leads[3].networkUrl` from a zod path. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/** One entry per offending input: unknown keys are named each, at their own path. */
export function issueFields(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => formatPath([...issue.path, k]));
  return [formatPath(issue.path)];
}

/** What is wrong with the field an issue names, without naming it ("unknown field" for a key the schema has not). */
export const issueMessage = (issue: z.core.$ZodIssue): string => (issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message);

export function describeIssue(issue: z.core.$ZodIssue, rename: (field: string) => string = (f) => f): string {
  const where = issueFields(issue).map(rename).join(', ') || '(root)';
  return `${where}: ${issueMessage(issue)}`;
}

/**
 * The one translation of a zod failure into the spec's validation_error. `rename` maps an
 * input name to the name the caller used (e.g. idempotencyKey → Idempotency-Key on REST).
 */
export function zodToApiError(error: z.ZodError, rename: (field: string) => string = (f) => f): ApiError {
  const fields = [...new Set(error.issues.flatMap(issueFields).map(rename))];
  const first = error.issues
    .slice(0, 3)
    .map((i) => describeIssue(i, rename))
    .join('; ');
  // One full stop: a message that ends a sentence of its own keeps its own.
  return new ApiError('validation_error', /[.!?…]$/.test(first) ? first : `${first}.`, { fields });
}

/*
 * Words are stored as given (docs/sequences.md, "Words"). A string from a person, an assistant
 * or a model may hold any character but two kinds: a NUL, which SQLite and most readers cut a
 * text at, and a lone UTF-16 surrogate, which is no character at all (UTF-8 cannot encode it, so
 * it would be stored as replacement characters and read back changed). Such text is refused
 * where it arrives, never repaired behind the writer's back.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL is what this rule looks for.
const BAD_WORDS = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a text cannot be stored as it was given (a NUL or a lone surrogate, with where it is), or
 * null when it can. The one check of the rule: the input guard runs it on every string of a
 * tool's arguments, and the rules of batch items, drafts, the drafter's output and imported
 * rows call it for theirs.
 */
export function wordsProblem(value: string): string | null {
  const found = BAD_WORDS.exec(value);
  if (!found) return null;
  const at = found.index + 1;
  const code = value.charCodeAt(found.index);
  if (code === 0) return `holds a NUL character (U+0000) at position ${at}; text may not contain it.`;
  const hex = code.toString(16).toUpperCase();
  return `holds a lone surrogate (U+${hex}) at position ${at}, half of a character that is not there; send the text as valid Unicode.`;
}

/**
 * A tree an argument may hold (an agent's `steps`, whose `if`s hold steps in `then` and `else`),
 * with its own limit: the guard refuses a tree past `max` levels with the path where it goes
 * too deep, before anything recursive reads it.
 */
export interface NestingRule {
  /** The top-level argument holding the tree: a list of nodes. */
  field: string;
  /** The keys of a node that hold its children, each a list of nodes. */
  branches: readonly string[];
  /** How many levels deep a node may sit (the top-level list is level 1). */
  max: number;
  /** The refusal's words for the first node found too deep, at `path`, `depth` levels down. */
  tooDeep(path: string, depth: number): string;
}

export interface InputRules {
  nesting?: readonly NestingRule[];
  /**
   * Top-level arguments whose items a tool answers one by one (a batch): their strings are left
   * to the tool's own per-item rules, so a bad text is that item's validation_error, not the
   * whole request's.
   */
  itemsAnsweredApart?: string | undefined;
}

/** No argument of any tool nests this deep; deeper input is refused before it is read. */
export const INPUT_DEPTH_MAX = 32;
/** More values than a request body under the size limit can hold (128 KiB makes at most ~65,000). */
export const INPUT_VALUES_MAX = 100_000;

interface Frame {
  value: unknown;
  parent: Frame | null;
  key: PropertyKey;
  depth: number;
  /** Strings here are checked by the guard (false inside a batch's items). */
  words: boolean;
  /** This is a list of a nesting rule's tree, at this level. */
  tree: { rule: NestingRule; level: number } | null;
  /** This is a node of such a list: its branches are lists one level down. */
  node: { rule: NestingRule; level: number } | null;
}

function pathOf(frame: Frame): string {
  const keys: PropertyKey[] = [];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) keys.push(f.key);
  return formatPath(keys.reverse());
}

/**
 * The shape of a tool call's arguments, checked before anything else walks them (zod, the
 * idempotency fingerprint, a confirmation's digest): how many values they hold, how deep they
 * nest, the trees with a limit of their own, and the words in every string. It walks with a
 * stack of its own, so no input, however deep, can overflow the call stack here; everything
 * after it reads input that is known to be shallow and of bounded size. Returns the refusal (a
 * validation_error naming the path), or null.
 */
export function inputShapeProblem(input: unknown, rules: InputRules = {}): ApiError | null {
  const nesting = rules.nesting ?? [];
  const stack: Frame[] = [{ value: input, parent: null, key: '', depth: 0, words: true, tree: null, node: null }];
  let values = 0;
  let deepest: Frame | null = null;
  let words: { frame: Frame; problem: string } | null = null;
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if (++values > INPUT_VALUES_MAX) {
      return new ApiError('validation_error', `The arguments hold more than ${INPUT_VALUES_MAX} values. Split the request.`, { fields: [] });
    }
    const { value } = frame;
    if (typeof value === 'string') {
      if (frame.words && words === null) {
        const problem = wordsProblem(value);
        if (problem) words = { frame, problem };
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      if (frame.tree && frame.tree.level > frame.tree.rule.max && value.length > 0) {
        const path = `${pathOf(frame)}[0]`;
        return new ApiError('validation_error', frame.tree.rule.tooDeep(path, frame.tree.level), { fields: [path] });
      }
      if (frame.depth >= INPUT_DEPTH_MAX) {
        deepest ??= frame;
        continue;
      }
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], parent: frame, key: i, depth: frame.depth + 1, words: frame.words, tree: null, node: frame.tree });
      }
      continue;
    }
    if (frame.depth >= INPUT_DEPTH_MAX) {
      deepest ??= frame;
      continue;
    }
    const keys = Object.keys(value);
    const root = frame.parent === null;
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      let tree: Frame['tree'] = null;
      if (root) {
        const rule = nesting.find((r) => r.field === key);
        if (rule) tree = { rule, level: 1 };
      } else if (frame.node?.rule.branches.includes(key)) {
        tree = { rule: frame.node.rule, level: frame.node.level + 1 };
      }
      const words = frame.words && !(root && key === rules.itemsAnsweredApart);
      stack.push({ value: (value as Record<string, unknown>)[key], parent: frame, key, depth: frame.depth + 1, words, tree, node: null });
    }
  }
  if (deepest) {
    const path = pathOf(deepest);
    return new ApiError('validation_error', `${path || '(root)'}: nested more than ${INPUT_DEPTH_MAX} levels deep; no argument nests that deep.`, {
      fields: [path],
    });
  }
  if (words) {
    const path = pathOf(words.frame);
    return new ApiError('validation_error', `${path || '(root)'}: ${words.problem}`, { fields: [path] });
  }
  return null;
}
