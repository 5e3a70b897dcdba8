/**
 * Vitest global setup: fails the run if any test wrote into the real saved-session
 * directory (`$XDG_STATE_HOME/corral`, else `~/.local/state/corral`). Every harness gives its
 * servers their own XDG_STATE_HOME; a server started without one would restore (and save
 * over) the user's own session.
 */
import { readdirSync, statSync } from 'node:fs';
import { resolveStateDir } from '../src/persist/state-files.js';

function listing(dir: string): string {
  try {
    return readdirSync(dir)
      .sort()
      .map((name) => `${name}:${statSync(`${dir}/${name}`).mtimeMs}`)
      .join('\n');
  } catch {
    return '(none)';
  }
}

export default function setup(): () => void {
  const dir = resolveStateDir(process.env);
  const before = listing(dir);
  return () => {
    const after = listing(dir);
    if (after !== before) throw new Error(`the test run wrote into the real state directory ${dir}:\nbefore:\n${before}\nafter:\n${after}`);
  };
}
