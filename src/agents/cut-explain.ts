/**
 * `agent explain`'s account of how the agent's answer and transcript are cut (issue 43): for an
 * agent read with the generic rules, the rows `agent read --answer` takes as the input box and
 * status rows, where it finds each prompt and answer (src/agents/generic-answer.ts), and what
 * its transcript is made of (src/agents/turn-screens.ts); for a known kind, where its rule file
 * says its answers are.
 */
import { genericAnswers, withoutBlankEnd } from './generic-answer.js';
import { submittedPrompts } from './prompt-log.js';
import type { AgentRules } from './rules-schema.js';
import { transcriptRows, turnReference } from './turn-screens.js';

/** The lines `agent explain` adds after the rules' evidence. `screen`: the rows detection reads now. */
export function explainCuts(agent: object, rules: AgentRules, screen: readonly string[], fullScreen: boolean): string {
  const lines: string[] = [];
  if (!rules.generic) {
    const where = rules.answerSession ? 'its session record ([answer_session])' : rules.answerScreen ? 'its screen, by [answer_screen]' : 'its screen, by the generic chrome';
    lines.push(`answer: from ${where} in ${rules.file}`);
    lines.push(`transcript: ${fullScreen ? `gathered by scrolling its view (transcript_scroll = "${rules.transcriptScroll}") when a read asks for more rows than the screen` : "the terminal's scrollback (it draws inline)"}`);
    return lines.join('\n');
  }
  const { rows, kept, gaps } = fullScreen ? transcriptRows(agent, screen) : { rows: withoutBlankEnd(screen), kept: 0, gaps: 0 };
  const cut = genericAnswers(rows, submittedPrompts(agent), turnReference(agent), rules.answerScreen?.chrome ?? [], 1);
  lines.push(`answer: screen-generic, from the ${fullScreen ? `${rows.length} rows of its transcript (rows kept, then the screen)` : `${rows.length} rows of its screen`}:`);
  for (const step of cut.how) lines.push(`  ${step}`);
  if (cut.answers !== null) lines.push(`  the answer: ${cut.answers[0]!.split('\n').length} lines (frame rows, [answer_screen] chrome of ${rules.file}, blank edges, bullet and indent taken out)`);
  lines.push(
    fullScreen
      ? `transcript: ${kept} rows kept from the screens seen while it worked: each screen's rows above its input box and status rows, laid over the rows kept before where they repeat${gaps > 0 ? `; ${gaps} screen${gaps === 1 ? '' : 's'} met no kept row (it scrolled further than a screen between two looks), so rows may be missing there` : ''}`
      : "transcript: the terminal's scrollback (it draws inline)",
  );
  return lines.join('\n');
}
