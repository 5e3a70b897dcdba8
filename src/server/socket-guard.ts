/**
 * Claiming a socket path safely (SPEC §1, §8): the directory must be private (created 0700
 * when missing, refused when not), a live server on the path is never displaced, a stale
 * socket file left by a crash is removed, and on exit a server removes the socket only if it
 * is still the one it created.
 */
import { chmodSync, linkSync, lstatSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { ensurePrivateDir } from '../socket-dir.js';

/** How long a probe waits for an existing socket to answer `system.identify`. */
const PROBE_TIMEOUT_MS = 1000;

/** Asks whatever listens on `socketPath` who it is; null when nothing answers. */
export function probeServer(socketPath: string): Promise<{ pid: number; version: string } | null> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let buffer = '';
    const done = (value: { pid: number; version: string } | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), PROBE_TIMEOUT_MS);
    socket.on('connect', () => socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.identify' }) + '\n'));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      const newline = buffer.indexOf('\n');
      if (newline === -1) return;
      try {
        const reply = JSON.parse(buffer.slice(0, newline));
        done(reply.result?.name === 'corral' ? { pid: reply.result.pid, version: reply.result.version } : null);
      } catch {
        done(null);
      }
    });
    socket.on('error', () => done(null));
  });
}

/** Prepares `socketPath` for listening: makes its directory and clears a stale socket. */
export async function claimSocketPath(socketPath: string): Promise<void> {
  ensurePrivateDir(dirname(socketPath));
  let exists = false;
  try {
    exists = lstatSync(socketPath).isSocket();
  } catch {
    return;
  }
  if (!exists) throw new CorralError('internal_error', `${socketPath} exists and is not a socket; refusing to replace it`);
  const live = await probeServer(socketPath);
  if (live) {
    throw new CorralError('internal_error', `a corral server (pid ${live.pid}) is already running on ${socketPath}`, { pid: live.pid });
  }
  unlinkSync(socketPath);
}

/** Which file a path names: device and inode, or null when nothing is there. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export function fileIdentity(path: string): FileIdentity | null {
  try {
    const stats = lstatSync(path);
    return { dev: stats.dev, ino: stats.ino };
  } catch {
    return null;
  }
}

/**
 * Removes the socket at `socketPath` only if it is still `ours`: a server that was stopped
 * (SIGSTOP) while a second one replaced its stale-looking socket must not delete the
 * second one's on its way out.
 */
export function removeSocketIfOurs(socketPath: string, ours: FileIdentity | null): void {
  const now = fileIdentity(socketPath);
  if (ours === null || now === null || now.dev !== ours.dev || now.ino !== ours.ino) return;
  try {
    unlinkSync(socketPath);
  } catch {
    // Gone in between: nothing to do.
  }
}

/**
 * Listens on `socketPath` without ever letting closing remove someone else's socket: libuv
 * unlinks the path it bound when the server closes, whatever file is there by then. So bind a
 * private temporary name, make it 0600, hard-link it into place and drop the temporary name.
 * The link also fails (EEXIST) rather than replace a socket that appeared since the claim.
 * Returns the socket's identity, for removeSocketIfOurs.
 */
export async function bindSocket(socketPath: string, listen: (path: string) => Promise<void>): Promise<FileIdentity> {
  // Short, so a socket path near the kernel's ~108-byte limit still has room for it.
  const temporary = join(dirname(socketPath), `.c${process.pid}`);
  try {
    unlinkSync(temporary); // left by a killed server that had this pid; our name, our directory
  } catch {
    // Usually absent.
  }
  await listen(temporary);
  try {
    chmodSync(temporary, 0o600);
    linkSync(temporary, socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new CorralError('internal_error', `another server took ${socketPath} while this one was starting`);
    }
    throw error;
  } finally {
    unlinkSync(temporary);
  }
  return fileIdentity(socketPath)!;
}
