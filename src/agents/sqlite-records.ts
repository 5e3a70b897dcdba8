/**
 * The records an agent keeps in SQLite (OpenCode, Kilo: `[usage] sqlite` and `query`), read
 * with better-sqlite3 without ever getting in the agent's way: opened read-only on a file that
 * must exist (never created), with a short busy timeout, the one query run, and closed at once.
 * A read-only connection takes no write lock and, in WAL mode, reads the last committed state
 * beside the agent's writer; a database busy past the timeout is simply read on the next change.
 *
 * better-sqlite3 is a native addon: loaded on first use from node_modules (never bundled), and
 * its absence makes these kinds' usage unknown rather than breaking the server.
 */
import { createRequire } from 'node:module';

export const SQLITE_READ = {
  /** Waiting on the agent's write lock (a checkpoint) at most this long: the next change reads again. */
  busyTimeoutMs: 50,
  /** Rows read per query at most: a session's model calls and prompts, never a runaway table. */
  maxRows: 100_000,
} as const;

/** The part of better-sqlite3's API used here (it ships no types of its own). */
interface Statement {
  iterate(params: Record<string, unknown>): IterableIterator<Record<string, unknown>>;
}
interface Database {
  prepare(sql: string): Statement;
  pragma(sql: string): unknown;
  close(): void;
}
type DatabaseConstructor = new (file: string, options: { readonly: boolean; fileMustExist: boolean; timeout: number }) => Database;

let loaded: DatabaseConstructor | null | undefined;

function databaseClass(): DatabaseConstructor | null {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/**
 * The rows `query` gives with `:session` bound to `session` (columns as keys; a column holding
 * a JSON object or array is parsed, so record paths reach inside it); null when the database
 * cannot be read now (missing, locked, not SQLite, the addon absent).
 */
export function sqliteRecords(file: string, query: string, session: string): Record<string, unknown>[] | null {
  const Database = databaseClass();
  if (Database === null) return null;
  let db: Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: SQLITE_READ.busyTimeoutMs });
    // Belt and braces: even a query that tried to write could not.
    db.pragma('query_only = true');
    const rows: Record<string, unknown>[] = [];
    for (const row of db.prepare(query).iterate({ session })) {
      rows.push(parseJsonColumns(row));
      if (rows.length >= SQLITE_READ.maxRows) break;
    }
    return rows;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

function parseJsonColumns(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (typeof value === 'string' && (value.startsWith('{') || value.startsWith('['))) {
      try {
        out[key] = JSON.parse(value);
        continue;
      } catch {
        // Text that only looks like JSON.
      }
    }
    out[key] = value;
  }
  return out;
}
