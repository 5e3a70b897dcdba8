/**
 * An agent corral has never seen (issue 43): its answer and its transcript, cut with no rules
 * of its own. Each lab kind's recorded screens (test/fixtures/agents/<kind>/) are fed as if the
 * kind were unknown — the screen before the turn, two screens while it ran, the screen after —
 * and `agent read --answer`'s generic cut must give the model's six lines and none of the UI.
 * Then a full-screen agent's conversation scrolled through a fixed input box over three turns
 * with the same answer: each answer is read right, and the rows kept are the conversation in
 * order, once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alike, chromeCut, findEcho, genericAnswers, NO_REFERENCE, withoutBlankEnd, withoutSidebar } from '../../src/agents/generic-answer.js';
import { notePrompt } from '../../src/agents/prompt-log.js';
import { loadAllRules } from '../../src/agents/rules.js';
import { mergeRegion, noteTurnScreen, transcriptRows, turnReference } from '../../src/agents/turn-screens.js';
import { explainCuts } from '../../src/agents/cut-explain.js';
import { ANSWER } from '../agents/model/script.mjs';

const FIXTURES = join(import.meta.dirname, '../fixtures/agents');
const RULES = loadAllRules();
const GENERIC = RULES.get('generic')!;
const CHROME = GENERIC.answerScreen!.chrome;
/** The lab's scripted model's answer to an ordinary prompt, as every recorded screen shows it. */
const ANSWER_LINES = ANSWER.split('\n');
/** Text of the agents' UI that an answer never holds. */
const UI_TEXT = ['for shortcuts', 'Ask Codex', 'Type your message', 'ctrl+p commands', 'Worked for', 'Cooked for', 'Fake Model', 'GPT Fake', '/tmp/', 'fake-model', 'Shift+Tab', 'permissions', '────', '▀▀▀'];

const screenOf = (kind: string, name: string) => readFileSync(join(FIXTURES, kind, `${name}.txt`), 'utf8').split('\n');
const fullScreen = (kind: string) => (JSON.parse(readFileSync(join(FIXTURES, kind, 'done-text-turn.json'), 'utf8')) as { alternate: boolean }).alternate;

/** Feeds a kind's recorded turn to the recorder as the registry's screen checks would; returns the agent key. */
function recordedTurn(kind: string): object {
  const agent = {};
  const full = fullScreen(kind);
  noteTurnScreen(agent, screenOf(kind, 'idle-startup'), false, full);
  notePrompt(agent, 'Say hello please');
  noteTurnScreen(agent, screenOf(kind, 'working-before-first-token'), true, full);
  noteTurnScreen(agent, screenOf(kind, 'working-midstream'), true, full);
  noteTurnScreen(agent, screenOf(kind, 'done-text-turn'), false, full);
  return agent;
}

describe('each lab kind, its rules set aside: the answer from its recorded screens', () => {
  for (const kind of ['claude', 'codex', 'gemini', 'qwen', 'pi', 'pi+ext', 'kilo', 'opencode']) {
    it(`${kind}: the six lines, no banner, input box, status rows or turn timing`, () => {
      const agent = recordedTurn(kind);
      const rows = transcriptRows(agent, screenOf(kind, 'done-text-turn')).rows;
      const cut = genericAnswers(rows, ['Say hello please'], turnReference(agent), CHROME, 1);
      expect(cut.answers, cut.how.join('\n')).toEqual([ANSWER]);
      for (const ui of UI_TEXT) expect(cut.answers![0]).not.toContain(ui);
      // The account names the block and why, and where the prompt and answer are.
      expect(cut.how[0]).toMatch(/^rows \d+–\d+ of \d+: the input box and status rows \(alike on/);
      expect(cut.how[1]).toMatch(/^answer on rows \d+–\d+, below prompt "Say hello please" echoed on row \d+$/);
    });
  }

  it('gemini: its bare "? for shortcuts" hint over the input box is chrome, though no screen before or during the turn had it (seen live)', () => {
    const withoutHint = (rows: string[]) => rows.map((row) => row.replace(/\s*\? for shortcuts\s*$/, ''));
    const full = fullScreen('gemini');
    const agent = {};
    noteTurnScreen(agent, withoutHint(screenOf('gemini', 'idle-startup')), false, full);
    notePrompt(agent, 'Say hello please');
    noteTurnScreen(agent, withoutHint(screenOf('gemini', 'working-before-first-token')), true, full);
    noteTurnScreen(agent, withoutHint(screenOf('gemini', 'working-midstream')), true, full);
    const done = screenOf('gemini', 'done-text-turn');
    noteTurnScreen(agent, done, false, full);
    const cut = genericAnswers(transcriptRows(agent, done).rows, ['Say hello please'], turnReference(agent), CHROME, 1);
    expect(cut.answers, cut.how.join('\n')).toEqual([ANSWER]);
  });

  it('without the screens from around the turn the status rows are not told apart (what the recorder is for)', () => {
    // pi draws no prompt glyph: nothing but the turn's screens says where its input box starts.
    const cut = genericAnswers(screenOf('pi', 'done-text-turn'), ['Say hello please'], NO_REFERENCE, CHROME, 1);
    expect(cut.answers![0]).toContain('fake-model');
    expect(cut.how[0]).toMatch(/^no input box or status rows told apart/);
  });

  it('a splash screen before the first turn (Kilo) is not compared: the first screen of the turn tells the input box', () => {
    const agent = recordedTurn('kilo');
    expect(chromeCut(withoutBlankEnd(screenOf('kilo', 'done-text-turn')), turnReference(agent), 'Say hello please').by).toBe('during');
  });

  it('a prompt that is nowhere: no answer, and the account says which rows were searched and for what', () => {
    // pi echoes a prompt with no glyph, so no row can stand in for the echo either.
    const agent = recordedTurn('pi');
    const cut = genericAnswers(withoutBlankEnd(screenOf('pi', 'done-text-turn')), ['Something else entirely'], turnReference(agent), CHROME, 1);
    expect(cut.answers).toBeNull();
    expect(cut.how[1]).toBe('prompt "Something else entirely" not found on rows 1–24 (looked for as "Somethingelseentirely", whitespace and box drawing left out, on one row or wrapped)');
  });

  it('no prompt of corral\'s on screen (a person typed it): a row starting with a prompt glyph is taken as its echo', () => {
    const agent = recordedTurn('gemini');
    const cut = genericAnswers(withoutBlankEnd(screenOf('gemini', 'done-text-turn')), [], turnReference(agent), CHROME, 1);
    expect(cut.answers).toEqual([ANSWER]);
    expect(cut.how.at(-1)).toMatch(/^rows starting with a prompt glyph \(>, ❯, ›\) above row \d+ taken as the echoed prompts$/);
  });

  it('a prompt typed and not sent sits in the input box: the answer before it is the last', () => {
    const agent = recordedTurn('claude');
    notePrompt(agent, 'Next task, not sent yet');
    const rows = screenOf('claude', 'done-text-turn').map((row) => (row.trim() === '❯' ? '❯ Next task, not sent yet' : row));
    const cut = genericAnswers(rows, ['Say hello please', 'Next task, not sent yet'], turnReference(agent), CHROME, 1);
    expect(cut.answers).toEqual([ANSWER]);
    expect(cut.how).toContain('prompt "Next task, not sent yet" is typed in the input box, not sent: the answer before it is the last');
  });

  it('Kilo on a wide pane: the sidebar beside the conversation is cut off', () => {
    const rows = withoutSidebar(screenOf('kilo', 'answer-sidebar'));
    expect(rows.join('\n')).not.toMatch(/Context|Token Usage|Code Indexing|Kilo 7/);
    expect(rows.filter((row) => ANSWER_LINES.includes(row.trim()))).toHaveLength(6);
    // A screen with no sidebar is left as it is.
    expect(withoutSidebar(screenOf('codex', 'done-text-turn'))).toEqual(screenOf('codex', 'done-text-turn'));
  });
});

describe('finding the prompt corral typed', () => {
  it('wrapped over rows, inside a border, after a prompt glyph', () => {
    const prompt = 'Please write a very long prompt that wraps over two rows of this narrow pane';
    const box = (text: string) => ['╭──────────────────────────────────────────────╮', ...text.split('\n').map((row) => `│ ${row.padEnd(44)} │`), '╰──────────────────────────────────────────────╯'];
    const rows = [...box('> Please write a very long prompt that wraps\n  over two rows of this narrow pane'), '', '✦ The answer.', '', ...box('>   Type your message')];
    expect(findEcho(rows, prompt, rows.length)).toEqual({ start: 1, end: 3 });
    expect(genericAnswers(rows, [prompt], NO_REFERENCE, CHROME, 1).answers).toEqual(['The answer.']);
  });

  it('a row that only mentions the prompt (a status line with the session title) is no echo', () => {
    expect(findEcho(['  gpt-fake default · /tmp/p · Say hello please'], 'Say hello please', 1)).toBeNull();
  });

  it('after other text on a row that starts with a prompt glyph (Qwen Code sends a cancelled prompt it put back, then the new one)', () => {
    const rows = ['  > Say hello once moreSay hello for the', '  transcript', '', '  ◆︎ The answer.'];
    expect(findEcho(rows, 'Say hello for the transcript', rows.length)).toEqual({ start: 0, end: 2 });
  });
});

describe('rows alike before, during and after a turn', () => {
  it('the same status row with other numbers, an added part, or a hint swapped while busy', () => {
    expect(alike('↑10 ↓20 0.0%/200k (auto)      fake-model', '0.0%/200k (auto)      fake-model')).toBe(true);
    expect(alike('  gpt-fake default · /tmp/p · Say hello please', '  gpt-fake default · /tmp/p')).toBe(true);
    expect(alike('  ? for shortcuts · ← for agents', '  esc to interrupt · ← for agents        ● high · /effort')).toBe(true);
    expect(alike('   ⬝⬝■■■■■■  esc interrupt      tab agents  ctrl+p commands', '   /tmp/oc/run/proj      30  ctrl+p commands')).toBe(true);
  });

  it('an answer row is not a status row; a blank row is not a frame row', () => {
    expect(alike('  Line two of the answer arrives a bit later.', '  gpt-fake default · /tmp/p')).toBe(false);
    expect(alike('', '──────────')).toBe(false);
    expect(alike('  Done.', '  Done!')).toBe(false);
  });
});

/** Codex's real input box and status rows, below a conversation that scrolls. */
const CODEX = withoutBlankEnd(screenOf('codex', 'done-text-turn'));
const CODEX_CHROME = CODEX.slice(CODEX.findIndex((row) => row.startsWith('› Ask Codex')));
const CODEX_BANNER = CODEX.slice(0, CODEX.findIndex((row) => row.startsWith('› Say hello please')));
const HEIGHT = 24;

/**
 * A full-screen frame: the end of the conversation, blank filler, the input box and status rows
 * at the bottom. As Codex does, the prompt of an answer cut at the top is pinned on the first row.
 */
function codexFrame(conversation: readonly string[], input = '› Ask Codex to do anything'): string[] {
  const room = HEIGHT - CODEX_CHROME.length;
  const from = Math.max(0, conversation.length - room);
  const pinned = conversation.slice(0, from + 1).reverse().find((row) => row.startsWith('› '));
  const shown = conversation.slice(from);
  if (from > 0 && pinned !== undefined && !shown[0]!.startsWith('› ')) shown[0] = pinned;
  return [...shown, ...Array<string>(room - shown.length).fill(''), input, ...CODEX_CHROME.slice(1)];
}

describe('a full-screen agent scrolling its conversation through a fixed input box', () => {
  for (const bar of [false, true]) it(`three turns with the same answer${bar ? ', a scrollbar beside them' : ''}: each read right, and the rows kept are the conversation in order, once`, () => {
    // Qwen Code draws a scrollbar in the last column once its conversation outgrows the screen; its thumb moves.
    const frame = (conversation: readonly string[], input?: string) => {
      const rows = codexFrame(conversation, input);
      if (!bar) return rows;
      const thumb = Math.floor((HEIGHT * Math.max(0, conversation.length - HEIGHT)) / Math.max(1, conversation.length));
      return rows.map((row, i) => (i < HEIGHT - CODEX_CHROME.length ? `${row.padEnd(HEIGHT * 5)} ${i === thumb ? '█' : '│'}` : row));
    };
    const agent = {};
    const conversation = [...CODEX_BANNER];
    const prompts: string[] = [];
    noteTurnScreen(agent, frame(conversation), false, true);
    for (const prompt of ['Say hello please', 'Say hello again', 'Say hello a third time']) {
      prompts.push(prompt);
      notePrompt(agent, prompt);
      // Typed, not yet sent: the input box shows it.
      noteTurnScreen(agent, frame(conversation, `› ${prompt}`), false, true);
      conversation.push(`› ${prompt}`, '');
      noteTurnScreen(agent, frame([...conversation, '• Working (0s • esc to interrupt)']), true, true);
      // The answer streams in a line at a time, scrolling the conversation up.
      const answer = ANSWER_LINES.map((line, i) => (i === 0 ? `• ${line}` : `  ${line}`));
      // Every other screen read with its rows padded to the width (as a visible read gives them, seen with Qwen Code).
      for (let i = 1; i <= answer.length; i++) {
        const screen = frame([...conversation, ...answer.slice(0, i), '', `• Working (${i}s • esc to interrupt)`]);
        noteTurnScreen(agent, i % 2 === 0 ? screen.map((row) => row.padEnd(HEIGHT * 4)) : screen, true, true);
      }
      // Codex puts a tip under an answer now and then (seen live).
      conversation.push(...answer, '  └ Tip: Press f3 to search this conversation.', '', '─ Worked for 7s ──────────', '');
      noteTurnScreen(agent, frame(conversation), false, true);
      const rows = transcriptRows(agent, frame(conversation)).rows;
      const cut = genericAnswers(rows, prompts, turnReference(agent), CHROME, 1);
      expect(cut.answers, cut.how.join('\n')).toEqual([ANSWER]);
    }
    expect(frame(conversation).join('\n')).not.toContain('› Say hello please');
    const { rows, gaps } = transcriptRows(agent, frame(conversation));
    expect(gaps).toBe(0);
    expect(rows).toEqual([...withoutBlankEnd(conversation), ...CODEX_CHROME]);
    expect(genericAnswers(rows, prompts, turnReference(agent), CHROME, 3).answers).toEqual([ANSWER, ANSWER, ANSWER]);
  });

  it('merging a newer screen: laid over the rows it repeats (its last rows redrawn), appended after a gap', () => {
    const kept = ['a', 'b', 'c', 'd partial'];
    expect(mergeRegion(kept, ['b', 'c', 'd whole', 'e'], 0)).toEqual({ rows: ['a', 'b', 'c', 'd whole', 'e'], start: 1, gap: false });
    expect(mergeRegion(kept, ['x', 'y'], 0)).toEqual({ rows: ['a', 'b', 'c', 'd partial', 'x', 'y'], start: 4, gap: true });
    // Never laid over rows before the last screen's start: an answer repeated further up is not the place.
    expect(mergeRegion(['b', 'c', 'q', 'b', 'c'], ['b', 'c', 'z'], 3).start).toBe(3);
  });
});

describe('agent explain: how the answer and the transcript are cut', () => {
  it('an unknown full-screen agent: the input box rows and why, the echo and the answer rows, the rows kept', () => {
    const agent = recordedTurn('kilo');
    const text = explainCuts(agent, GENERIC, screenOf('kilo', 'done-text-turn'), true);
    expect(text.split('\n')).toEqual([
      'answer: screen-generic, from the 19 rows of its transcript (rows kept, then the screen):',
      '  rows 14–19 of 19: the input box and status rows (alike on the first screen while the turn ran; the screen before it had another layout)',
      '  answer on rows 4–13, below prompt "Say hello please" echoed on row 3',
      '  the answer: 6 lines (frame rows, [answer_screen] chrome of assets/agents/generic.toml, blank edges, bullet and indent taken out)',
      expect.stringMatching(/^transcript: 13 rows kept from the screens seen while it worked: each screen's rows above its input box and status rows/),
    ]);
  });

  it('an unknown inline agent: its screen, and the scrollback for a transcript', () => {
    const text = explainCuts(recordedTurn('pi'), GENERIC, screenOf('pi', 'done-text-turn'), false);
    expect(text).toMatch(/^answer: screen-generic, from the \d+ rows of its screen:/);
    expect(text).toContain("transcript: the terminal's scrollback (it draws inline)");
  });

  it('a known kind: where its rule file says its answers are', () => {
    expect(explainCuts({}, RULES.get('claude')!, [], false)).toBe(
      "answer: from its session record ([answer_session]) in assets/agents/claude.toml\ntranscript: the terminal's scrollback (it draws inline)",
    );
    expect(explainCuts({}, RULES.get('kilo')!, [], true)).toContain('answer: from its screen, by [answer_screen] in assets/agents/kilo.toml\ntranscript: gathered by scrolling its view (transcript_scroll = "page-keys")');
  });
});
