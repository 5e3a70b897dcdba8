/** How restore plans a pane (resumeArgv itself: test/unit/agent-resume.test.ts). */
import { describe, expect, it } from 'vitest';
import { planPane } from '../../src/persist/restore.js';
import type { SavedPane } from '../../src/persist/session-state.js';

describe('planPane', () => {
  const base: SavedPane = {
    id: 'w1:p1', surface_id: 1, workspace: 'w1', tab: 'w1:t1', name: null, aliases: [], start_cwd: '/tmp', cwd: '/tmp',
    command: '', env: {}, restore_command: null, agent: null,
  };
  const at = new Date(2026, 0, 2, 3, 4);
  const opts = { resumeAgents: true, home: '/' };

  it('falls back to the workspace cwd when the saved one is gone, and says so', () => {
    const plan = planPane({ ...base, cwd: '/nonexistent/gone' }, '/tmp', '', at, opts);
    expect(plan.cwd).toBe('/tmp');
    expect(plan.preamble).toContain('/nonexistent/gone is gone; the shell starts in /tmp');
  });
  it('says what ran in the foreground, with control characters made visible, and does not restart it', () => {
    const plan = planPane({ ...base, command: 'vim \x1b[31mx' }, '/tmp', '', at, opts);
    expect(plan.input).toBeNull();
    expect(plan.preamble).toMatch(/was running: vim .*\[31mx \(not restarted\)/);
    expect(plan.preamble).not.toContain('\x1b[31mx');
  });
  it('re-runs an up file\'s restore command', () => {
    expect(planPane({ ...base, command: 'npm run dev', restore_command: 'npm run dev' }, '/tmp', '', at, opts).input).toBe('npm run dev\r');
  });
  it('resumes an agent by id with shell-quoted words; not with resume_agents off', () => {
    const agent = { kind: 'claude', name: 'rev', argv: ['claude', '--append-system-prompt', "it's"], session_id: 'abc' };
    expect(planPane({ ...base, agent }, '/tmp', '', at, opts).input).toBe(`claude --append-system-prompt 'it'\\''s' --resume abc\r`);
    const off = planPane({ ...base, agent }, '/tmp', '', at, { ...opts, resumeAgents: false });
    expect(off.input).toBeNull();
    expect(off.preamble).toContain('not restarted: resume_agents is off');
  });
  it('does not resume an agent whose directory is gone (a discarded worktree) somewhere else', () => {
    const agent = { kind: 'claude', name: 'rev', argv: ['claude'], session_id: 'abc' };
    const plan = planPane({ ...base, cwd: '/nonexistent/worktree', agent }, '/tmp', '', at, opts);
    expect(plan.input).toBeNull();
    expect(plan.cwd).toBe('/tmp');
    expect(plan.preamble).toContain('claude agent "rev" ran there: claude (not restarted in another directory)');
  });
});
