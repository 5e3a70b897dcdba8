/** Reading an `up` or flow file from disk, with the context its relative paths need. */
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CorralError } from '../contract/protocol.js';
import type { ParseFileOptions } from './up-file.js';

/** The file's text and how to parse it; an unreadable file is an `invalid_params` error (exit 1). */
export function readPlanFile(file: string, env: NodeJS.ProcessEnv = process.env): { source: string; opts: ParseFileOptions } {
  const absolute = path.resolve(file);
  let source: string;
  try {
    if (statSync(absolute).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    source = readFileSync(absolute, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? (error as Error).message);
    throw new CorralError('invalid_params', `${file}: cannot read: ${reason}`, { file });
  }
  return { source, opts: { baseDir: path.dirname(absolute), shownPath: file, home: env.HOME || os.homedir() } };
}
