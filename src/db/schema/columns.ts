import { integer } from 'drizzle-orm/sqlite-core';

/** A boolean stored as SQLite's 0 or 1. */
export const bool = (name: string) => integer(name, { mode: 'boolean' });
