/**
 * The body of `corral hook <event>`: read the agent's hook JSON from stdin, map it, send ONE
 * JSON-RPC request to the server, wait for its answer, and get out of the agent's way (SPEC §4): never an
 * error, never output, never more than a second. Agents wait for their hooks (Claude before
 * each tool, Gemini on every event), and some parse hook stdout — Gemini even parses stderr
 * when stdout is empty — so this writes nothing to either.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { resolveSocketPath } from '../../paths.js';
import { assertPrivateDir } from '../../socket-dir.js';
import { type AiEvent, type HookAgent, lastAssistantText, mapHookEvent } from '../../agents/hook-events.js';

/** Time and size bounds of one hook run. */
export const HOOK_RUN_LIMITS = {
  /** Hard stop for the whole run; under SPEC's 1 s with room for process start-up. */
  deadlineMs: 800,
  /**
   * Agents write the payload and close stdin at once; a stdin still open after this is not
   * going to bring one, and the event alone is still worth sending.
   */
  stdinTimeoutMs: 400,
  /** Hook payloads carry tool inputs (a whole file for Write); more than this is not needed. */
  maxStdinBytes: 1024 * 1024,
  /** Tail of a transcript searched for the last assistant text; a turn's end fits easily. */
  transcriptTailBytes: 256 * 1024,
} as const;

export interface HookRunOptions {
  event: AiEvent;
  agent?: HookAgent;
  exitCode?: number;
  env?: NodeJS.ProcessEnv;
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** Reads stdin to its end or the byte cap (draining the rest so the agent never blocks). */
export function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }, maxBytes: number, timeoutMs: number): Promise<string> {
  // A terminal is a person trying the command: there is no payload coming.
  if (stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    stdin.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (size + buf.length > maxBytes) overflow = true;
      else chunks.push(buf);
      size += buf.length;
    });
    const done = (): void => {
      clearTimeout(timer);
      resolve(overflow ? '' : Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, timeoutMs);
    stdin.on('end', done);
    stdin.on('error', done);
  });
}

/** The last `maxBytes` of a file as text, or undefined when it cannot be read. */
export function readTail(file: string, maxBytes: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf.toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Parses the payload; anything but a JSON object becomes `{}` (the event alone still counts). */
export function parsePayload(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Sends one NDJSON request and resolves once the server answered (any answer), or on any
 * failure. The hook waits for the answer on purpose: the server places the sender by its
 * process (SPEC §8, a hook counts only for the pane it runs in), which it can only do while
 * that process lives. The caller's deadline bounds the wait.
 */
export function sendRequest(socketPath: string, line: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const finish = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('data', (chunk: Buffer) => {
      if (chunk.includes(0x0a)) finish(true);
    });
    socket.on('connect', () => {
      // An agent's hook data goes to no socket in a directory another user could control (SPEC §8).
      try {
        assertPrivateDir(dirname(socketPath));
      } catch {
        finish(false);
        return;
      }
      socket.write(line);
    });
  });
}

/**
 * Runs one hook: resolves when done (or at the deadline); never rejects. Returns what was
 * sent, for tests; null when nothing was (not in a corral pane, nothing to say, no server).
 */
export async function runHook(opts: HookRunOptions): Promise<Record<string, unknown> | null> {
  const env = opts.env ?? process.env;
  const stdin = opts.stdin ?? process.stdin;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), HOOK_RUN_LIMITS.deadlineMs);
  });
  const work = (async (): Promise<Record<string, unknown> | null> => {
    const paneId = env.CORRAL_PANE_ID;
    const raw = await readStdin(stdin, HOOK_RUN_LIMITS.maxStdinBytes, HOOK_RUN_LIMITS.stdinTimeoutMs);
    // Outside corral there is nobody to tell; the stdin was still drained so the agent's write never fails.
    if (paneId === undefined || paneId === '') return null;
    const mapped = mapHookEvent(opts.event, parsePayload(raw), opts.agent, { exitCode: opts.exitCode });
    if (!mapped) return null;
    if (mapped.transcriptPath !== undefined) {
      const tail = readTail(mapped.transcriptPath, HOOK_RUN_LIMITS.transcriptTailBytes);
      const last = tail === undefined ? undefined : lastAssistantText(tail);
      if (last !== undefined) mapped.params.last_result = last;
    }
    const message = { jsonrpc: '2.0', id: 1, method: `ai.${mapped.event}`, params: { ...mapped.params, pane_id: paneId } };
    let socketPath: string;
    try {
      socketPath = resolveSocketPath({}, env);
    } catch {
      return null;
    }
    const sent = await sendRequest(socketPath, `${JSON.stringify(message)}\n`);
    return sent ? message : null;
  })().catch(() => null);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
