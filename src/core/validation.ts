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

export function describeIssue(issue: z.core.$ZodIssue, rename: (field: string) => string = (f) => f): string {
  const where = issueFields(issue).map(rename).join(', ') || '(root)';
  if (issue.code === 'unrecognized_keys') return `${where}: unknown field`;
  return `${where}: ${issue.message}`;
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
  return new ApiError('validation_error', `${first}.`, { fields });
}
