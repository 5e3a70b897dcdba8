/**
 * The injection fence (SPEC §8): peer terminal output handed to an agent is wrapped in a
 * tag pair with a random id, so a model can tell where untrusted text ends and cannot be
 * tricked by output that prints a closing tag of its own.
 */
import { randomBytes } from 'node:crypto';
import { CorralError } from '../rpc/protocol.js';

export const FENCE_TAG = 'untrusted_terminal_output';

/** 8 random bytes = 16 hex chars: unguessable by the output being fenced, short enough to read. */
const FENCE_ID_BYTES = 8;

/** Ids become an attribute value; a closed alphabet keeps the tag well-formed. */
const FENCE_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `<` + optional `/` + the tag name, tolerating the variations a reader might still take for
 * the tag: any case, whitespace or invisible format characters around the `/`, and `-` or
 * spaces instead of `_`. Opening tags are neutralised too, so the text cannot open a fake
 * nested fence either.
 */
const TAG_LOOKALIKE_RE =
  /<([\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]*\/?[\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]*untrusted[\s_-]*terminal[\s_-]*output)/giu;

export interface FenceOptions {
  surfaceId: number;
  /** Total lines the source holds (not just the ones returned), so the reader knows what is missing. */
  totalLines: number;
  /** Whether the text reaches the end of the source's output. */
  eof: boolean;
  /** Fixed id for tests; random otherwise. */
  id?: string;
}

/** A fresh fence id: 16 random hex characters. */
export function newFenceId(): string {
  return randomBytes(FENCE_ID_BYTES).toString('hex');
}

/** `text` with every tag-like `<untrusted_terminal_output` / `</…` turned into `&lt;…`. */
export function neutraliseFenceTags(text: string): string {
  return text.replace(TAG_LOOKALIKE_RE, '&lt;$1');
}

/** Wraps untrusted terminal output in the fence; the last line is the only real closing tag. */
export function wrapUntrusted(text: string, opts: FenceOptions): string {
  const id = opts.id ?? newFenceId();
  if (!FENCE_ID_RE.test(id)) {
    throw new CorralError('invalid_params', `invalid fence id "${id}"`, { id });
  }
  const body = neutraliseFenceTags(text);
  // Keep the closing tag on its own line without doubling a trailing newline the text already has.
  const sep = body === '' || body.endsWith('\n') ? '' : '\n';
  return (
    `<${FENCE_TAG} source="surface:${opts.surfaceId}" total_lines="${opts.totalLines}" eof="${opts.eof}" id="${id}">\n` +
    `${body}${sep}</${FENCE_TAG} id="${id}">`
  );
}
