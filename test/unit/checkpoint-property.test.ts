/**
 * Checkpoints hold their promise (SPEC §20), on real git repositories: random sequences of
 * edits (files written and deleted, a file becoming a directory and back, a directory replaced
 * by a symbolic link out of the repository), checkpoints and rewinds. After rewinding to a
 * checkpoint the files are exactly that checkpoint's; ignored files, the user's index and
 * HEAD never change; nothing outside the repository is ever touched. The rewind runs the
 * steps `agent rewind` runs (src/actions/checkpoint-actions.ts): the files as they are read
 * into a tree, then git's two-tree update to the checkpoint.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointMessage, commitTree, findCheckout, restoreTree, snapshotTree, type Checkout } from '../../src/checkpoint/checkpoint-git.js';
import { ScratchRepo } from './support/git-repo.js';

/** The paths edits touch: nested, and `x` as a file or a directory. */
const PATHS = ['a.txt', 'b.txt', 'd/c.txt', 'd/e/f.txt', 'x', 'x/y.txt', 'sp ace.txt'] as const;

type Step =
  | { kind: 'write'; path: (typeof PATHS)[number]; text: string }
  | { kind: 'delete'; path: (typeof PATHS)[number] | 'd' }
  | { kind: 'ignored'; text: string }
  | { kind: 'link-out' }
  | { kind: 'checkpoint' }
  | { kind: 'rewind'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), path: fc.constantFrom(...PATHS), text: fc.string({ maxLength: 12 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...PATHS, 'd' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('ignored' as const), text: fc.string({ maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'link-out' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'checkpoint' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
);

/** The files git would see (ignored ones and .git left out): path → content, or a link's target. */
function filesOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const rel = path.relative(root, full);
      if (rel === '.git' || name.endsWith('.log')) continue;
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) out[rel] = `link:${readlinkSync(full)}`;
      else if (stat.isDirectory()) walk(full);
      else out[rel] = readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return out;
}

/** Everything under a directory, ignored files included: what "untouched" compares. */
function everything(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) out[path.relative(root, full)] = `link:${readlinkSync(full)}`;
      else if (stat.isDirectory()) walk(full);
      else out[path.relative(root, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return out;
}

/** Writes a file, clearing whatever stands in its way (a file where a directory must be, or the other way). */
function writeThrough(root: string, rel: string, text: string): void {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = path.join(root, ...parts.slice(0, i));
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (stat && !stat.isDirectory()) rmSync(dir, { force: true });
  }
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  const target = path.join(root, rel);
  if (lstatSync(target, { throwIfNoEntry: false })?.isDirectory()) rmSync(target, { recursive: true, force: true });
  writeFileSync(target, text);
}

describe('checkpoint and rewind on random edits', () => {
  let scratch: ScratchRepo;
  let outside: string;
  const ctx = () => ({ env: scratch.env });

  beforeAll(() => {
    scratch = new ScratchRepo({ 'a.txt': 'a\n', 'd/c.txt': 'c\n', '.gitignore': '*.log\n' });
    outside = path.join(scratch.dir, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'c.txt'), 'outside c\n');
    writeFileSync(path.join(outside, 'secret'), 'must stay\n');
  });

  afterAll(() => scratch.remove());

  it('a rewind gives back exactly the checkpoint\u2019s files and touches nothing else', async () => {
    const repo = scratch.repo;
    const outsideBefore = everything(outside);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
        // Each run starts from the committed tree, with the user's own staged change.
        round++;
        scratch.git(repo, 'reset', '-q', '--hard');
        scratch.git(repo, 'clean', '-q', '-fdx');
        writeFileSync(path.join(repo, 'a.txt'), `a staged ${round}\n`);
        scratch.git(repo, 'add', 'a.txt');
        writeFileSync(path.join(repo, 'keep.log'), 'ignored\n');
        const user = { head: scratch.git(repo, 'rev-parse', 'HEAD'), index: scratch.git(repo, 'ls-files', '-s') };
        const checkout = (await findCheckout(ctx(), repo)) as Checkout;
        const taken: { commit: string; files: Record<string, string> }[] = [];
        const checkpoint = async () => {
          const { tree } = await snapshotTree(ctx(), checkout);
          const facts = { id: taken.length + 1, turn: taken.length + 1, at: new Date().toISOString(), prompt: '', reason: 'turn' as const, ms: 0, checkout: checkout.top, kind: 'test' };
          return { tree, commit: await commitTree(ctx(), checkout, tree, checkpointMessage('prop', facts)) };
        };
        for (const s of steps) {
          if (s.kind === 'write') writeThrough(repo, s.path, s.text);
          else if (s.kind === 'delete') rmSync(path.join(repo, s.path), { recursive: true, force: true });
          else if (s.kind === 'ignored') writeFileSync(path.join(repo, 'keep.log'), s.text);
          else if (s.kind === 'link-out') {
            rmSync(path.join(repo, 'd'), { recursive: true, force: true });
            symlinkSync(outside, path.join(repo, 'd'));
          } else if (s.kind === 'checkpoint') {
            const { commit } = await checkpoint();
            taken.push({ commit, files: filesOf(repo) });
          } else if (taken.length > 0) {
            const target = taken[s.pick % taken.length]!;
            const ignored = readFileSync(path.join(repo, 'keep.log'), 'utf8');
            const now = await checkpoint();
            await restoreTree(ctx(), checkout, now.tree, target.commit);
            expect(filesOf(repo)).toEqual(target.files);
            expect(readFileSync(path.join(repo, 'keep.log'), 'utf8')).toBe(ignored);
          }
          expect(everything(outside)).toEqual(outsideBefore);
        }
        expect({ head: scratch.git(repo, 'rev-parse', 'HEAD'), index: scratch.git(repo, 'ls-files', '-s') }).toEqual(user);
      }),
      { numRuns: 12, seed: 4141, endOnFailure: true },
    );
  }, 120_000);
});
