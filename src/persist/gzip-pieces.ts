/**
 * gzip on the event loop, a bounded piece at a time.
 *
 * Why not `zlib.gzip` (async): it runs on libuv's thread pool, and node initialises each
 * stream's deflate state there, so glibc serves those ~300 KB from the worker thread's own
 * malloc arena. Freed later from the main thread, that memory stays with the arena, and
 * arenas are trimmed only from their top: with 20 panes saved every 500 ms the server held
 * 519 MB against 115 MB with persistence off (bench/persist.mjs, docs/bench.md). Setting
 * MALLOC_ARENA_MAX would leak into every pane's environment. `gzipSync` allocates and frees
 * on the main thread, whose arena gives memory back.
 *
 * Why pieces: a save can compress a whole pane's last lines (a full capture: 2000 lines,
 * ~200 KB; with `persist_scrollback_lines = 100000`, megabytes). Each piece of at most
 * GZIP_PIECE_BYTES of input is one gzip member (~0.5 ms at level 6 on this machine), and the
 * event loop gets a turn between pieces, so pane output and keystrokes never wait behind a
 * save. Members back to back are one valid gzip stream (RFC 1952 §2.2): the reader
 * (saved-scrollback.ts `decompressScrollback`) inflates them all, in order.
 */
import { gzipSync } from 'node:zlib';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Input bytes per gzip member: the chunk size of scrollback-log.ts, so a chunk is one member. */
export const GZIP_PIECE_BYTES = 16 * 1024;

/** zlib's default trade-off: level 9 costs ~2× the time for ~2 % smaller files on this text. */
const GZIP_LEVEL = 6;

/**
 * Where the input is cut: pieces of `pieceBytes`, except that a remainder under a quarter of
 * a piece joins the piece before it (a 16.2 KB chunk is one member, not one plus a sliver).
 * Cuts may fall inside a UTF-8 character: members decompress to bytes, joined before decoding.
 */
export function pieceEnds(length: number, pieceBytes = GZIP_PIECE_BYTES): number[] {
  if (!Number.isInteger(pieceBytes) || pieceBytes <= 0) throw new RangeError(`pieceBytes must be a positive integer, got ${pieceBytes}`);
  const ends: number[] = [];
  let at = 0;
  do {
    let end = at + pieceBytes;
    if (length - end < pieceBytes / 4) end = length;
    ends.push(end);
    at = end;
  } while (at < length);
  return ends;
}

/** `text` as UTF-8, gzip members of at most ~1.25 × `pieceBytes` of input each, yielding between them. */
export async function gzipMembers(text: string, pieceBytes = GZIP_PIECE_BYTES): Promise<Buffer[]> {
  const input = Buffer.from(text, 'utf8');
  const members: Buffer[] = [];
  let at = 0;
  for (const end of pieceEnds(input.length, pieceBytes)) {
    if (at > 0) await nextTurn();
    members.push(gzipSync(input.subarray(at, end), { level: GZIP_LEVEL }));
    at = end;
  }
  return members;
}

/** `text` compressed as one gzip stream (members back to back); an empty text is one empty member. */
export async function gzipText(text: string, pieceBytes = GZIP_PIECE_BYTES): Promise<Buffer> {
  const members = await gzipMembers(text, pieceBytes);
  return members.length === 1 ? members[0]! : Buffer.concat(members);
}
