/**
 * A small path language for the records of agents' session files (`[answer_session]` in a
 * kind's rule file): where a record's text is, as data rather than code per agent.
 * - `message.content` — keys, one after another;
 * - `content[]` — every element of the array at `content`;
 * - `content[type=text]` — the elements whose `type` is the string `text`;
 * - a leading `[]` / `[k=v]` applies to the record itself (a document that is an array).
 * Evaluation never throws: a key missing on the way, or a value of another shape, yields nothing.
 */

export type PathStep = { kind: 'key'; name: string } | { kind: 'each'; whereKey: string | null; whereValue: string | null };
export type RecordPath = readonly PathStep[];

const SEGMENT_RE = /^([A-Za-z0-9_$-]*)((?:\[(?:[A-Za-z0-9_$-]+=[^\]]*)?\])*)$/;
const EACH_RE = /\[(?:([A-Za-z0-9_$-]+)=([^\]]*))?\]/g;

/** The steps of a path, or a sentence saying what is wrong with it. */
export function parseRecordPath(source: string): RecordPath | string {
  if (source === '') return 'empty path';
  if (source.length > 200) return 'longer than 200 characters';
  const steps: PathStep[] = [];
  for (const segment of source.split('.')) {
    const m = SEGMENT_RE.exec(segment);
    if (!m || (m[1] === '' && m[2] === '')) return `bad segment ${JSON.stringify(segment)}: use name, name[] or name[key=value]`;
    if (m[1] !== '') steps.push({ kind: 'key', name: m[1]! });
    for (const each of m[2]!.matchAll(EACH_RE)) steps.push({ kind: 'each', whereKey: each[1] ?? null, whereValue: each[2] ?? null });
  }
  return steps;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every value the path reaches in `record`, in document order. */
export function valuesAt(record: unknown, path: RecordPath): unknown[] {
  let current: unknown[] = [record];
  for (const step of path) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === 'key') {
        if (isObject(value) && Object.hasOwn(value, step.name)) next.push(value[step.name]);
      } else if (Array.isArray(value)) {
        for (const element of value) {
          if (step.whereKey === null || (isObject(element) && element[step.whereKey] === step.whereValue)) next.push(element);
        }
      }
    }
    current = next;
  }
  return current;
}

/** The strings the path reaches in `record` (other values are not text). */
export function textsAt(record: unknown, path: RecordPath): string[] {
  return valuesAt(record, path).filter((value): value is string => typeof value === 'string');
}
