/**
 * The web view's sessions (SPEC §16): which cookies are valid, until when. Kept in an
 * owner-only file in corral's state directory (`web-<session>.json`, 0600, written
 * atomically, never through a symlink) so `corral web --revoke-all` — another process —
 * ends them all, and a restarted `corral web` keeps a person logged in for the 12 h.
 *
 * Only a hash of each cookie is stored: the file never holds a credential.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { constants, openSync, fstatSync, lstatSync, readSync, closeSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateStateDir, writeFileAtomic } from '../persist/state-files.js';

export const SESSION_LIMITS = {
  /** A cookie lives 12 h (SPEC §16): a working day, not a week. */
  maxAgeMs: 12 * 60 * 60 * 1000,
  /** Sessions kept; the oldest go first (each login adds one). */
  maxSessions: 64,
  /** The file is a few KB at most; a bigger one is not ours. */
  maxFileBytes: 256 * 1024,
} as const;

interface StoredSession {
  /** sha256 of the cookie value, hex. */
  hash: string;
  expires: number;
}

/** 256 random bits, as URL-safe text: tokens and cookie values alike. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The store file of one corral session. */
export function sessionStoreFile(stateDir: string, session: string): string {
  return path.join(stateDir, `web-${session}.json`);
}

export class SessionStore {
  private sessions: StoredSession[] = [];
  /** What the file was when last read: another process (`--revoke-all`) may have rewritten it. */
  private loadedStamp = '';

  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates a session, returns the cookie value. */
  async create(): Promise<string> {
    this.reload();
    const secret = randomSecret();
    const now = this.now();
    this.sessions = this.sessions.filter((s) => s.expires > now);
    this.sessions.push({ hash: hashOf(secret), expires: now + SESSION_LIMITS.maxAgeMs });
    while (this.sessions.length > SESSION_LIMITS.maxSessions) this.sessions.shift();
    await this.save();
    return secret;
  }

  /** Whether `cookie` names a live session. */
  valid(cookie: string | undefined): boolean {
    if (!cookie || cookie.length > 128) return false;
    this.reload();
    const hash = Buffer.from(hashOf(cookie), 'hex');
    const now = this.now();
    // Every entry compared in constant time: the answer's timing says nothing about the hashes.
    let found = false;
    for (const s of this.sessions) if (s.expires > now && timingSafeEqual(Buffer.from(s.hash, 'hex'), hash)) found = true;
    return found;
  }

  /** Ends every session (`corral web --revoke-all`); returns how many were live. */
  async revokeAll(): Promise<number> {
    this.reload();
    const live = this.sessions.filter((s) => s.expires > this.now()).length;
    this.sessions = [];
    await this.save();
    return live;
  }

  private async save(): Promise<void> {
    ensurePrivateStateDir(path.dirname(this.file));
    await writeFileAtomic(this.file, JSON.stringify({ sessions: this.sessions }));
    this.loadedStamp = this.stamp() ?? '';
  }

  /**
   * The file's identity and time, or null when absent: one lstat (never following a symlink),
   * since every request, every WebSocket upgrade and each open page's check every second asks.
   * A file that changes between this and the read that follows is read again next time.
   */
  private stamp(): string | null {
    try {
      const st = lstatSync(this.file);
      return `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch {
      return null;
    }
  }

  /** Reads the file again when it changed since last read; a missing or foreign file means no sessions. */
  private reload(): void {
    const stamp = this.stamp();
    if (stamp === this.loadedStamp) return;
    this.loadedStamp = stamp ?? '';
    this.sessions = [];
    if (stamp === null) return;
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return;
    }
    try {
      const st = fstatSync(fd);
      // Someone else's file, or one others may write, grants nothing.
      if (!st.isFile() || st.size > SESSION_LIMITS.maxFileBytes || st.uid !== (process.getuid?.() ?? st.uid) || (st.mode & 0o077) !== 0) return;
      const buffer = Buffer.alloc(st.size);
      readSync(fd, buffer, 0, st.size, 0);
      const parsed = JSON.parse(buffer.toString('utf8')) as { sessions?: unknown };
      if (!Array.isArray(parsed.sessions)) return;
      this.sessions = parsed.sessions.filter(
        (s): s is StoredSession => typeof s === 'object' && s !== null && typeof s.hash === 'string' && /^[0-9a-f]{64}$/.test(s.hash) && typeof s.expires === 'number',
      );
    } catch {
      this.sessions = [];
    } finally {
      closeSync(fd);
    }
  }
}
