/**
 * `agent.read` with `answer` (issue 29, "the answer, not the UI"): what the agent answered in
 * its last turns, for scripts and flows that hand one agent's answer to the next. From the
 * agent's own session record when its kind says how to read one (`[answer_session]`) and corral
 * knows its session id; else from its screen (src/agents/screen-answer.ts), gathering a
 * full-screen agent's transcript; for an agent read with the generic rules, from its screen cut
 * by what corral saw around the turn (src/agents/generic-answer.ts, issue 43). The agent must be idle: a turn still running has no answer yet.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { CorralError, type AgentRead } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import type { AgentRules } from '../agents/rules-schema.js';
import { submittedPrompts } from '../agents/prompt-log.js';
import { answersFromScreen } from '../agents/screen-answer.js';
import { genericAnswers } from '../agents/generic-answer.js';
import { transcriptRows, turnReference } from '../agents/turn-screens.js';
import { findSessionRecord, sessionTurns, type SessionTurn } from '../agents/session-answers.js';
import { processEnv } from '../agents/session-files.js';
import { readPane } from './pane-io.js';
import { readGathering } from './transcript.js';

export const ANSWER_READ = {
  /**
   * How long a read waits for the session record to catch up with the screen: agents write
   * the turn's last record around the time their screen turns idle, corral may not have found
   * the session id yet, and a flow reads the answer right then.
   */
  sessionCatchUpMs: 3000,
  sessionPollMs: 100,
  /** Screen rows read from an inline agent's scrollback. */
  screenLines: 2000,
  /** Screens of a full-screen agent's transcript gathered per turn asked for (each scroll takes a redraw). */
  screensPerTurn: 3,
} as const;

/** The part of the registry's tracked agent an answer read uses. */
interface AnswerAgent {
  kind: string;
  pid: number | null;
  sessionId: string | null;
  rules: AgentRules | null;
  state: { status: string };
}

/** The agent's last `turns` answers (oldest first), with where they were read. */
export async function readAnswer(core: CorralCore, pane: PaneRecord, turns: number): Promise<AgentRead> {
  const agent: AnswerAgent | null = core.agents.agentIn(pane);
  if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
  const status = agent.state.status;
  if (status !== 'idle' && status !== 'done') {
    throw new CorralError('agent_not_idle', `the agent in ${pane.id} is ${status}; its answer is not finished, so wait for idle before reading it`, { pane_id: pane.id });
  }
  const prompts = submittedPrompts(agent);
  const base = readPane(core, pane, { source: 'recent', lines: 1 }).read;
  if (agent.rules?.generic) return { ...base, ...genericAnswer(core, pane, agent, agent.rules, prompts, turns) };
  const fromSession = await sessionAnswers(agent, prompts, turns);
  const answers = fromSession ?? (await screenAnswers(core, pane, agent, prompts, turns));
  if (answers === null || answers.every((answer) => answer === '')) {
    throw new CorralError(
      'agent_no_answer',
      fromSession === null
        ? `no answer to read from the agent in ${pane.id}: its kind keeps no session record corral reads, and no prompt corral submitted is on its screen`
        : `the agent in ${pane.id} wrote no text in its last ${turns === 1 ? 'turn' : `${turns} turns`} (tool calls only?)`,
      { pane_id: pane.id },
    );
  }
  return { ...base, text: answers.join('\n\n'), truncated: false, answer_source: fromSession ? 'session' : 'screen', answers };
}

/**
 * An agent read with the generic rules: its answers cut from its screen by what corral saw
 * around the turn (src/agents/generic-answer.ts) — from its transcript (the rows kept while it
 * worked, then the screen) when it draws full-screen, else from its scrollback and screen.
 */
function genericAnswer(core: CorralCore, pane: PaneRecord, agent: AnswerAgent, rules: AgentRules, prompts: readonly string[], turns: number): Pick<AgentRead, 'text' | 'truncated' | 'answer_source' | 'answers'> {
  const terminal = core.host(pane).terminal;
  const rows = terminal.isAlternateScreen
    ? transcriptRows(agent, terminal.read({ source: 'visible' }).text.split('\n')).rows
    : readPane(core, pane, { source: 'recent-unwrapped', lines: ANSWER_READ.screenLines }).read.text.split('\n');
  const cut = genericAnswers(rows, prompts, turnReference(agent), rules.answerScreen?.chrome ?? [], turns);
  if (cut.answers === null || cut.answers.every((answer) => answer === '')) {
    const why = cut.answers === null ? 'no prompt corral submitted is on its screen' : `it drew no text below the prompt in its last ${turns === 1 ? 'turn' : `${turns} turns`}`;
    throw new CorralError('agent_no_answer', `no answer to read from the agent in ${pane.id} (read with the generic rules): ${why} — ${cut.how.join('; ')}`, { pane_id: pane.id, cut: cut.how });
  }
  return { text: cut.answers.join('\n\n'), truncated: false, answer_source: 'screen-generic', answers: cut.answers };
}

/** The prompt a session turn answers is one corral submitted (the record has caught up). */
function holdsPrompt(turns: readonly SessionTurn[], prompt: string | undefined): boolean {
  if (prompt === undefined) return turns.length > 0;
  const wanted = prompt.replace(/\s+/g, ' ').trim();
  return turns.some((turn) => turn.prompt.replace(/\s+/g, ' ').trim() === wanted);
}

/** The answers from the agent's session record; null when its kind has none corral reads or it cannot be found. */
async function sessionAnswers(agent: AnswerAgent, prompts: readonly string[], turns: number): Promise<string[] | null> {
  const spec = agent.rules?.answerSession ?? null;
  const files = agent.rules?.resume?.sessionFiles ?? [];
  if (spec === null || files.length === 0) return null;
  const env = agent.pid === null ? {} : processEnv(agent.pid);
  const lastPrompt = prompts[prompts.length - 1];
  const deadline = Date.now() + ANSWER_READ.sessionCatchUpMs;
  for (;;) {
    const id = agent.sessionId;
    const file = id === null ? null : await findSessionRecord(files, id, env);
    const found = file === null ? null : await sessionTurns(file, spec);
    if (found !== null && holdsPrompt(found, lastPrompt) && found[found.length - 1]!.answer !== '') {
      return found.slice(-turns).map((turn) => turn.answer);
    }
    // Polled: the record is another program's file, written when it pleases.
    if (Date.now() >= deadline) return null;
    await delay(ANSWER_READ.sessionPollMs);
  }
}

/** The answers on the agent's screen (its transcript, for a full-screen agent); null when its prompt is not there. */
async function screenAnswers(core: CorralCore, pane: PaneRecord, agent: AnswerAgent, prompts: readonly string[], turns: number): Promise<string[] | null> {
  const terminal = core.host(pane).terminal;
  const read = terminal.isAlternateScreen
    ? await readGathering(core, pane, { source: 'recent', lines: Math.min(ANSWER_READ.screenLines, terminal.rows * ANSWER_READ.screensPerTurn * turns + 1) }, 'refuse')
    : readPane(core, pane, { source: 'recent-unwrapped', lines: ANSWER_READ.screenLines }).read;
  return answersFromScreen(read.text.split('\n'), prompts, agent.rules?.answerScreen ?? null, turns);
}
