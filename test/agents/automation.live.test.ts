/**
 * The source document's three automation scripts (SPEC §5, seeds/002), run as a script inside
 * a corral pane — the way an agent would — with the real Claude Code, Gemini CLI and Codex:
 * start a helper, give it work, read the reply; wait for blocked, read, answer with
 * send-keys; run a plain command and wait for its output. Plus Codex's transcript read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentLab, type LabAgent } from './lab.js';

const SCRIPT = `#!/usr/bin/env bash
# Run inside a corral pane: every verb finds the server through CORRAL_SOCKET, and --current
# is this pane.
set -u
kind=$1
out=$2
step() { printf '== %s rc=%s\\n' "$1" "$2" >> "$out"; }

# 1. Start a helper, give it work, and wait until the work is done.
split=$(corral pane split --current --direction right --no-focus)
review_pane=$(printf '%s\\n' "$split" | jq -r '.result.pane.pane_id')
corral agent start reviewer --kind "$kind" --pane "$review_pane" --timeout 120000 > /dev/null
step start $?
corral agent prompt reviewer "Review the current diff" --wait --timeout 120000 > "$out.prompt.json"
step prompt $?
corral agent read reviewer --source recent-unwrapped --lines 120 > "$out.read1.txt"
step read1 $?

# 2. Wait for the agent to ask for input, inspect it, and answer through the UI.
corral agent prompt reviewer "Please RUNTOOL now" > /dev/null
corral agent wait reviewer --until blocked --timeout 120000 > "$out.blocked.json"
step blocked $?
corral agent read reviewer --source recent-unwrapped --lines 80 > "$out.read2.txt" 2> "$out.read2.err"
step read2 $?
corral agent send-keys reviewer enter > /dev/null
step answer $?
corral agent wait reviewer --until idle --until done --timeout 120000 > /dev/null
step settled $?

# 3. Run a plain process and wait for its output without treating it as an agent.
split=$(corral pane split --current --direction down --no-focus)
plain_pane=$(printf '%s\\n' "$split" | jq -r '.result.pane.pane_id')
corral pane run "$plain_pane" "echo tests passed"
corral pane wait-output "$plain_pane" --regex "passed|failed" --timeout 120000 > "$out.wait.json"
step wait-output $?
echo SCRIPT-FINISHED >> "$out"
`;

const AGENTS: LabAgent[] = ['claude', 'gemini', 'codex'];

for (const agent of AGENTS) {
  describe(`${agent}: the automation scripts, run from inside a pane`, () => {
    let lab: AgentLab;
    let pane: string;
    let out: string;
    beforeAll(async () => {
      lab = await new AgentLab(agent).start();
      pane = await lab.workspace();
      const script = join(lab.project, 'automate.sh');
      writeFileSync(script, SCRIPT, { mode: 0o755 });
      out = join(lab.project, 'out.txt');
      await lab.server.json(['pane', 'run', pane, `bash ${script} ${agent} ${out}; echo SCRIPT-EXIT-$?`]);
      await lab.server.json(['pane', 'wait-output', pane, '--regex', '^SCRIPT-EXIT-\\d+$', '--timeout', '170000']);
    }, 200_000);
    afterAll(async () => {
      await lab?.stop();
    });

    it('ran every step successfully', () => {
      const log = readFileSync(out, 'utf8');
      expect(log).toContain('SCRIPT-FINISHED');
      for (const step of ['start', 'prompt', 'read1', 'blocked', 'answer', 'settled', 'wait-output']) {
        expect(log, log).toContain(`== ${step} rc=0`);
      }
    });

    it('prompt --wait returned the settled agent after real work', () => {
      const prompted = JSON.parse(readFileSync(`${out}.prompt.json`, 'utf8')).result.agent;
      expect(['idle', 'done', 'blocked']).toContain(prompted.agent_status);
      expect(prompted.completion_seq).toBe(prompted.state_change_seq);
      expect(readFileSync(`${out}.read1.txt`, 'utf8')).toContain('Final line: Done.');
    });

    it('saw the agent blocked and read the question before answering', () => {
      const blocked = JSON.parse(readFileSync(`${out}.blocked.json`, 'utf8')).result.agent;
      expect(blocked.agent_status).toBe('blocked');
      expect(blocked.message).toBeTruthy();
      const log = readFileSync(out, 'utf8');
      if (agent === 'codex') {
        // Codex draws on the alternate screen: 80 lines is more than it shows, and gathering its
        // history scrolls it, which SPEC §5 allows only while idle.
        expect(log).toContain('== read2 rc=1');
        expect(JSON.parse(readFileSync(`${out}.read2.err`, 'utf8')).error.code).toBe('agent_not_idle');
      } else {
        expect(log).toContain('== read2 rc=0');
        expect(readFileSync(`${out}.read2.txt`, 'utf8').length).toBeGreaterThan(0);
      }
    });

    it('waited for a plain command\u2019s output', () => {
      const waited = JSON.parse(readFileSync(`${out}.wait.json`, 'utf8')).result;
      expect(waited.matched_line).toMatch(/passed|failed/);
    });
  });
}

describe('codex: reading a transcript longer than its screen', () => {
  let lab: AgentLab;
  beforeAll(async () => {
    lab = await new AgentLab('codex').start();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('gathers the earlier lines by scrolling, and puts the view back', async () => {
    const root = await lab.workspace();
    // A short pane, so three answers cannot fit on Codex's (alternate) screen.
    const split = await lab.server.json(['pane', 'split', root, '--direction', 'down', '--ratio', '0.7']);
    const pane = split.result.pane.pane_id;
    expect(split.result.pane.rows).toBeLessThan(20);
    await lab.server.json(['agent', 'start', 'scribe', '--kind', 'codex', '--pane', pane, '--timeout', '120000']);
    for (const word of ['alpha', 'beta', 'gamma']) {
      await lab.server.json(['agent', 'prompt', 'scribe', `Say hello ${word}`, '--wait', '--timeout', '120000']);
    }
    // The echoed prompts start with "›" (Codex's footer repeats the first prompt without it).
    const visible = (await lab.server.cli(['agent', 'read', 'scribe', '--source', 'visible'])).stdout;
    expect(visible).not.toContain('› Say hello alpha');
    const transcript = await lab.server.cli(['agent', 'read', 'scribe', '--source', 'recent', '--lines', '200']);
    expect(transcript.code, transcript.stderr).toBe(0);
    expect(transcript.stdout).toContain('› Say hello alpha');
    expect(transcript.stdout).toContain('› Say hello beta');
    expect(transcript.stdout).toContain('› Say hello gamma');
    // One run of lines: every prompt once, and Codex's fixed rows (its footer) not repeated per page.
    const count = (text: string, line: string) => text.split('\n').filter((l) => l === line).length;
    for (const word of ['alpha', 'beta', 'gamma']) expect(count(transcript.stdout, `› Say hello ${word}`)).toBe(1);
    const footer = visible.trimEnd().split('\n').at(-1)!;
    expect(count(transcript.stdout, footer), transcript.stdout).toBe(1);
    const after = (await lab.server.cli(['agent', 'read', 'scribe', '--source', 'visible'])).stdout;
    expect(after).toBe(visible);
    // `pane read` of the agent's pane gathers the same transcript (herdr: "also applies to pane read").
    const paneRead = await lab.server.cli(['pane', 'read', pane, '--source', 'recent', '--lines', '200']);
    expect(paneRead.code, paneRead.stderr).toBe(0);
    expect(paneRead.stdout).toBe(transcript.stdout);
  });
});
