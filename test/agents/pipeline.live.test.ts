/**
 * The shipped review pipeline (assets/examples/review-pipeline.toml) with two real Claude Code
 * agents and the fake model: the implementer answers, its last lines are captured, and the
 * reviewer gets them in its prompt, submits, and finishes — all through `corral flow run`.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../integration/harness.js';
import { AgentLab } from './lab.js';

describe('review pipeline with two claude agents', () => {
  let lab: AgentLab;
  beforeAll(async () => {
    lab = await new AgentLab('claude').start();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('runs implementer → capture → reviewer to ready, exit 0', async () => {
    // The example's cwd is ".", its own directory: put it in the project the lab trusts.
    const flow = join(lab.project, 'review-pipeline.toml');
    copyFileSync(join(ROOT, 'assets/examples/review-pipeline.toml'), flow);
    const run = await lab.server.cli(['flow', 'run', flow, '--json'], { timeoutMs: 170_000 });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ flow: 'review', status: 'ready' });
    expect(report.steps.map((s: any) => [s.id, s.status])).toEqual([
      ['implementer', 'ready'],
      ['implement', 'ready'],
      ['reviewer', 'ready'],
      ['review', 'ready'],
    ]);
    const [implementer, , reviewer] = report.steps.map((s: any) => s.pane_id);
    expect(report.steps[1].pane_id).toBe(implementer);
    expect(report.steps[3].pane_id).toBe(reviewer);
    expect(reviewer).not.toBe(implementer);

    // Both agents answered; both are claude and idle (or done) in the flow's workspace.
    const ps = JSON.parse((await lab.server.cli(['ps', '--json'])).stdout);
    expect(ps.agents.map((a: any) => [a.pane_id, a.tool]).sort()).toEqual([
      [implementer, 'claude'],
      [reviewer, 'claude'],
    ]);
    for (const agent of ps.agents) expect(['idle', 'done']).toContain(agent.agent_status);
    const implementerText = (await lab.server.cli(['agent', 'read', implementer, '--lines', '80'])).stdout;
    expect(implementerText).toContain('Final line: Done.');
    const reviewerText = (await lab.server.cli(['agent', 'read', reviewer, '--lines', '200'])).stdout;
    expect(reviewerText).toContain('Final line: Done.');
    // The captured report reached the reviewer's prompt: the implementer's task and answer show there.
    expect(reviewerText).toContain('Another agent just changed this project');
    expect(reviewerText).toContain('Implement the open TODO in this project');
    expect(reviewerText.split('Line five: almost there.').length - 1).toBeGreaterThanOrEqual(2);

    // The model saw the reviewer's prompt (the fake model logs the first 80 characters of each).
    const log = readFileSync(join(lab.server.dir, 'fake-model.log'), 'utf8');
    expect(log).toContain('Another agent just changed this project');
  });

  it('up starts two agents in parallel and types their prompts without submitting', async () => {
    const file = join(lab.project, 'agents.toml');
    writeFileSync(
      file,
      ['name = "duo"', 'layout = "even_v"', '[[panes]]', 'name = "left"', 'agent = "claude"', 'prompt = "UNSUBMITTED-PROMPT-ONE"', '[[panes]]', 'name = "right"', 'agent = "claude"', 'focus = true'].join('\n'),
    );
    const up = await lab.server.cli(['up', file, '--json'], { timeoutMs: 170_000 });
    expect(up.code, up.stderr).toBe(0);
    const { workspace, panes } = JSON.parse(up.stdout).result;
    expect(workspace.label).toBe('duo');
    expect(panes.map((p: any) => [p.name, p.agent?.kind, p.focused])).toEqual([
      ['left', 'claude', false],
      ['right', 'claude', true],
    ]);
    for (const pane of panes) expect(['idle', 'done']).toContain(pane.agent.agent_status);
    const left = (await lab.server.cli(['agent', 'read', panes[0].pane_id, '--source', 'visible'])).stdout;
    expect(left).toContain('UNSUBMITTED-PROMPT-ONE');
    // Typed, not submitted: the model never saw it.
    expect(readFileSync(join(lab.server.dir, 'fake-model.log'), 'utf8')).not.toContain('UNSUBMITTED-PROMPT-ONE');
  });
});
