/**
 * The agent's answers from its own session record (issue 29): the file its kind's `[resume]
 * session_files` locate by the session id, read as its `[answer_session]` table says. A turn
 * is one prompt the person (or corral) sent and the text the model wrote after it, tool calls
 * and results left out.
 *
 * Session files are written by programs in panes: untrusted. Only their last
 * `SESSION_ANSWER_LIMITS.tailBytes` are read (a long session's start is not needed for its
 * last turns), a JSON document is read only when it is smaller than that, and a line that is
 * not JSON is skipped.
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SessionAnswerSpec, RecordSelector } from './answer-spec.js';
import { textsAt, valuesAt } from './record-path.js';
import { expandGlob, expandPath, idFromRecord, readHead, SESSION_FILE_LIMITS } from './session-files.js';
import type { SessionFileSpec } from './rules-schema.js';
import { isValidSessionId } from './resume.js';
import { visibleControls } from '../terminal/control-chars.js';

export const SESSION_ANSWER_LIMITS = {
  /** Bytes read from the end of a session file: many turns of text, never a whole huge log. */
  tailBytes: 8 * 1024 * 1024,
} as const;

/** One turn: the prompt that opened it and the text the model wrote after it. */
export interface SessionTurn {
  prompt: string;
  answer: string;
}

/** Whether a record is of the selector's kind: every `match` path holds one of its values. */
function matches(record: unknown, selector: RecordSelector): boolean {
  return selector.match.every(({ path, values }) => {
    const found = valuesAt(record, path);
    if (found.length === 0) return values.includes(false);
    return found.some((value) => (values as readonly unknown[]).includes(value));
  });
}

/**
 * The selector's text of a record, its pieces joined by line breaks, its control characters
 * made visible (line breaks and tabs kept): a session file is written by a program in a pane,
 * and this text is shown to people and typed into other agents (a flow's capture), where an
 * ESC or a carriage return would act instead of being read.
 */
function textOf(record: unknown, selector: RecordSelector): string {
  const text = textsAt(record, selector.text).join('\n').replace(/\r\n/g, '\n').trim();
  return text
    .split('\t')
    .map((piece) => visibleControls(piece, { keepNewlines: true }))
    .join('\t');
}

/**
 * The turns in `records` (oldest first). A prompt record opens a turn only when it has text
 * (a tool result travels as a "user" record in several agents, with no text at the prompt's
 * path); reply texts of one turn are joined by a blank line. Replies before the first prompt
 * (the start of a tail read) belong to no turn and are dropped.
 */
export function turnsOf(records: readonly unknown[], spec: SessionAnswerSpec): SessionTurn[] {
  const turns: { prompt: string; parts: string[] }[] = [];
  for (const record of latestVersions(records, spec)) {
    if (matches(record, spec.prompt)) {
      const prompt = textOf(record, spec.prompt);
      if (prompt !== '') {
        turns.push({ prompt, parts: [] });
        continue;
      }
    }
    if (turns.length > 0 && matches(record, spec.reply)) {
      const text = textOf(record, spec.reply);
      if (text !== '') turns[turns.length - 1]!.parts.push(text);
    }
  }
  return turns.map(({ prompt, parts }) => ({ prompt, answer: parts.join('\n\n') }));
}

/** The records without those a later record with the same `record_id` re-writes. */
function latestVersions(records: readonly unknown[], spec: SessionAnswerSpec): readonly unknown[] {
  if (spec.recordId === null) return records;
  const idOf = (record: unknown): string | undefined => {
    const id = valuesAt(record, spec.recordId!)[0];
    return typeof id === 'string' ? id : undefined;
  };
  const last = new Map<string, number>();
  records.forEach((record, index) => {
    const id = idOf(record);
    if (id !== undefined) last.set(id, index);
  });
  return records.filter((record, index) => {
    const id = idOf(record);
    return id === undefined || last.get(id) === index;
  });
}

/** The records of a session file's text: JSON lines (a cut first line skipped), or one document. */
export function recordsOf(text: string, spec: SessionAnswerSpec, cutAtStart: boolean): unknown[] {
  if (spec.format === 'json') {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      return [];
    }
    const found = spec.records === null ? [document] : valuesAt(document, spec.records);
    const list = found[0];
    return Array.isArray(list) ? list : [];
  }
  const lines = text.split('\n');
  if (cutAtStart) lines.shift();
  const records: unknown[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      // A line being written, or not JSON: not a record.
    }
  }
  return records;
}

/** The last `tailBytes` of a file, and whether its start was cut; null when unreadable or, for a JSON document, too big. */
export async function readTail(file: string, format: SessionAnswerSpec['format']): Promise<{ text: string; cut: boolean } | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const { size } = await handle.stat();
    const limit = SESSION_ANSWER_LIMITS.tailBytes;
    // A JSON document cannot be read from its middle.
    if (format === 'json' && size > limit) return null;
    const start = Math.max(0, size - limit);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return { text: buffer.subarray(0, bytesRead).toString('utf8'), cut: start > 0 };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** The turns of a session file, oldest first; null when it cannot be read. */
export async function sessionTurns(file: string, spec: SessionAnswerSpec): Promise<SessionTurn[] | null> {
  const tail = await readTail(file, spec.format);
  if (tail === null) return null;
  return turnsOf(recordsOf(tail.text, spec, tail.cut), spec);
}

/**
 * The session record of session `id`: the newest file one of `specs` names for it (a `{id}`
 * in the name, else the id in the name or in the file's first record). `{pid}` files name a
 * running process's session, not its record, and are skipped.
 */
export async function findSessionRecord(specs: readonly SessionFileSpec[], id: string, env: Readonly<Record<string, string>>): Promise<string | null> {
  if (!isValidSessionId(id)) return null;
  for (const spec of specs) {
    const template = expandPath(spec.path, env);
    if (template.includes('{pid}')) continue;
    const named = template.includes('{id}');
    const files = await newestFirst(await expandGlob(named ? template.replaceAll('{id}', id) : template));
    for (const file of files.slice(0, SESSION_FILE_LIMITS.maxCandidates)) {
      if (named || basename(file).includes(id)) return file;
      const head = readHead(file);
      if (head !== null && spec.idKey !== null && idFromRecord(head, spec.idKey) === id) return file;
    }
  }
  return null;
}

async function newestFirst(files: readonly string[]): Promise<string[]> {
  const dated: { file: string; mtime: number }[] = [];
  for (const file of files) {
    try {
      const st = await stat(file);
      if (st.isFile()) dated.push({ file, mtime: st.mtimeMs });
    } catch {
      // Gone since the listing.
    }
  }
  return dated.sort((a, b) => b.mtime - a.mtime).map((d) => d.file);
}
