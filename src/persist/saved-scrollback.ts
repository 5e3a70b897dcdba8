/**
 * A pane's scrollback as saved with the session: its last N logical lines with SGR colours
 * (kept by scrollback-log.ts through src/terminal/ansi-row.ts), gzip-compressed as several
 * members one after the other (files of the first version are one zlib stream; both read); and, on
 * restore, the text written into the fresh pane's terminal above its new shell — the saved
 * lines, a dim `── restored <date> ──` line and what did not come back.
 */
import { unzipSync, constants as zlibConstants } from 'node:zlib';

/** A saved file inflating past this is not one corral wrote (100k lines of colourful text fit). */
const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

/** gzip (every member, in order) or zlib, told apart by their headers. */
export function decompressScrollback(data: Buffer): string {
  return unzipSync(data, { maxOutputLength: MAX_INFLATED_BYTES, finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString('utf8');
}

/**
 * Keeps SGR sequences (`ESC [ params m`) and printable text; drops every other control
 * character, so a tampered or damaged file cannot move the cursor, retitle the terminal or
 * answer queries in the restored pane.
 */
export function onlySgr(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x1b && text[i + 1] === '[') {
      // A CSI sequence: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte.
      let j = i + 2;
      while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
      const paramsEnd = j;
      while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
      const params = text.slice(i + 2, paramsEnd);
      // Kept only when it is SGR: digits, `;` and `:` then `m`, nothing between.
      if (text[j] === 'm' && j === paramsEnd && /^[0-9;:]*$/.test(params)) out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
      i += 1;
      continue;
    }
    out += text[i];
    i += 1;
  }
  return out;
}

const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/** `2026-12-01 03:12` in local time: what a person reads on the restored line. */
export function restoredDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * What a restored pane's terminal shows before its shell's first prompt: the saved lines
 * (SGR only), then `── restored <date> ──` and one dim line per note (a program that is not
 * restarted, a cwd that is gone…), each ending in a reset so no colour leaks into the shell.
 */
export function restorePreamble(saved: string, savedAt: Date, notes: readonly string[]): string {
  const lines = saved === '' ? [] : saved.split('\n').map((line) => onlySgr(line) + RESET);
  lines.push(`${DIM}── restored ${restoredDate(savedAt)} ──${RESET}`);
  for (const note of notes) lines.push(`${DIM}${onlySgr(note)}${RESET}`);
  return lines.join('\r\n') + '\r\n';
}
