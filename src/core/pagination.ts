import { z } from 'zod';

/** `limit` for every list: integer 1..100, default 50. */
export const Limit = z.number().int().min(1).max(100).default(50).describe('Page size.');
export const Cursor = z.string().min(1).max(512).describe('nextCursor of the previous page.');
