/**
 * Claiming a socket path safely (SPEC §1): the directory is created 0700, a live server on
 * the path is never displaced, and a stale socket file left by a crash is removed.
 */
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { CorralError } from '../rpc/protocol.js';

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
  const dir = dirname(socketPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
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
