/**
 * Stand-in for the `string-width` package inside the CLI bundle (aliased in scripts/build.mjs).
 * The real one compiles Unicode-property regexes at import time, ~20 ms of every CLI start
 * (yargs pulls two copies in), and is only used to lay out `--help` text.
 */
import { displayWidth } from './output.js';

/** Matches CSI and OSC escape sequences, which take no columns. */
const ANSI_RE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Terminal columns of `text`, ignoring ANSI escapes. */
export default function stringWidth(text: string): number {
  if (typeof text !== 'string' || text === '') return 0;
  return displayWidth(text.replace(ANSI_RE, ''));
}
