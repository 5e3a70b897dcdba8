/**
 * The promise of SPEC §15, tried on random histories against real git: whatever sequence of
 * create, edit, commit, merge (three modes, conflicts included), discard and prune happens,
 * no change — committed or not — is ever lost unless its worktree was explicitly discarded,
 * and what a merge brought into the main checkout stays there.
 *
 * Every edit writes a fresh token (appended to a shared file, so worktrees conflict, or in a
 * new file); after each step every token must still be found in some checkout's files or in
 * the history of some branch. Edits only add, so a token can only vanish through corral.
 * Sized to run in a few seconds; CORRAL_PROPERTY_RUNS raises the number of histories.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Worktrees, type WorktreeRecord } from '../../src/worktree/worktrees.js';
import { pruneReasons } from '../../src/worktree/prune.js';
import { ScratchRepo } from './support/git-repo.js';

const NAMES = ['w1', 'w2', 'w3'] as const;
type Name = (typeof NAMES)[number];

type Step =
  | { kind: 'create'; name: Name }
  | { kind: 'edit'; name: Name; shared: boolean }
  | { kind: 'commit'; name: Name }
  | { kind: 'merge'; name: Name; mode: 'merge' | 'squash' | 'rebase' }
  | { kind: 'discard'; name: Name }
  | { kind: 'prune'; force: boolean }
  | { kind: 'main-edit'; commit: boolean };

const name = fc.constantFrom(...NAMES);
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('create' as const), name }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('edit' as const), name, shared: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('commit' as const), name }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('merge' as const), name, mode: fc.constantFrom('merge' as const, 'squash' as const, 'rebase' as const) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('discard' as const), name }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('prune' as const), force: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('main-edit' as const), commit: fc.boolean() }), weight: 1 },
);

const RUNS = Number(process.env.CORRAL_PROPERTY_RUNS ?? 4);

/** Every text of every file under `dir` (the .git file and directory left out). */
function filesText(dir: string): string {
  let text = '';
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git') continue;
    const full = path.join(dir, entry.name);
    text += entry.isDirectory() ? filesText(full) : readFileSync(full, 'utf8');
  }
  return text;
}

let scratch: ScratchRepo | null = null;
afterEach(() => {
  scratch?.remove();
  scratch = null;
});

describe('worktrees never lose a change that was not discarded', () => {
  it('random create/edit/commit/merge/discard/prune histories', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 10 }), async (steps) => {
        scratch?.remove();
        const s = (scratch = new ScratchRepo({ 'shared.txt': 'base\n' }));
        const wt = new Worktrees({ root: '', setup: '', setup_timeout_secs: 60 }, s.env);
        const live = new Map<Name, WorktreeRecord>();
        /** Tokens by where they were written: a worktree's name, or `main`. */
        const origin = new Map<string, Name | 'main'>();
        const mayBeLost = new Set<string>();
        /** Tokens a merge brought into the main checkout's branch: they must stay there. */
        const inMain = new Set<string>();
        let counter = 0;
        const token = (where: Name | 'main') => {
          const t = `tok-${++counter}`;
          origin.set(t, where);
          return t;
        };
        const expected = () => [...origin.keys()].filter((t) => !mayBeLost.has(t));

        for (const current of steps) {
          const record = 'name' in current ? live.get(current.name) : undefined;
          switch (current.kind) {
            case 'create':
              if (!record) live.set(current.name, (await wt.create(s.repo, { name: current.name })).record);
              break;
            case 'edit':
              if (record) {
                const t = token(current.name);
                if (current.shared) s.write(record.path, { 'shared.txt': readFileSync(path.join(record.path, 'shared.txt'), 'utf8') + `${t}\n` });
                else s.write(record.path, { [`${t}.txt`]: `${t}\n` });
              }
              break;
            case 'commit':
              if (record) s.commitAll(record.path, 'work');
              break;
            case 'merge':
              if (record) {
                const carried = [...origin].filter(([, where]) => where === current.name).map(([t]) => t);
                const outcome = await wt.merge(record, { mode: current.mode }).then(
                  () => 'merged',
                  (error: { code?: string }) => error.code,
                );
                expect(['merged', 'merge_conflict', 'main_checkout_dirty']).toContain(outcome);
                if (outcome === 'merged') for (const t of carried) inMain.add(t);
              }
              break;
            case 'discard':
              if (record) {
                await wt.remove(record);
                live.delete(current.name);
                // Explicitly thrown away: what only it held may go (what a merge took in stays, checked below).
                for (const [t, where] of origin) if (where === current.name) mayBeLost.add(t);
              }
              break;
            case 'prune':
              for (const [n, r] of [...live]) {
                if (pruneReasons(r, await wt.state(r), null, current.force).length > 0) continue;
                await wt.remove(r);
                live.delete(n);
                // Forced: unmerged and dirty work goes, as asked. Unforced: nothing may.
                if (current.force) for (const [t, where] of origin) if (where === n) mayBeLost.add(t);
              }
              break;
            case 'main-edit': {
              const t = token('main');
              s.write(s.repo, { 'shared.txt': readFileSync(path.join(s.repo, 'shared.txt'), 'utf8') + `${t}\n` });
              if (current.commit) s.commitAll(s.repo, 'main work');
              break;
            }
          }
          // Every token not thrown away is in some checkout's files or some branch's history.
          const history = s.git(s.repo, 'log', '--all', '-p', '--format=');
          const files = [s.repo, ...[...live.values()].map((r) => r.path)].map(filesText).join('\n');
          const lost = expected().filter((t) => !history.includes(`+${t}`) && !files.includes(t));
          expect(lost, `after ${JSON.stringify(current)}`).toEqual([]);
          const mainHistory = s.git(s.repo, 'log', 'main', '-p', '--format=');
          expect([...inMain].filter((t) => !mainHistory.includes(`+${t}`)), 'merged into main').toEqual([]);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
