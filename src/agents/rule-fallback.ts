/**
 * Which rule set reads an agent's screen: its kind's own, or the generic set (assets/agents/
 * generic.toml) when the own rules cannot be trusted to know the screen in front of them. A
 * kind's rules must never do worse than the generic ones:
 *
 * - an **unverified** kind's rules are guesses: when they see nothing busy and the generic
 *   idioms see work or a question, the generic verdict stands;
 * - a **verified** kind's rules can fall behind a new version of its agent: when corral
 *   submitted a prompt, the screen changed, and `missAfterMs` later the own rules have still
 *   not seen working or blocked, they missed the turn, and the generic idioms speak for them
 *   until the own rules see work again.
 *
 * Own rules that see working or blocked always decide: their evidence is specific. Pure: the
 * registry keeps a `PromptTrack` per agent and asks on every screen check.
 */
import { evaluateRules, type AgentRules, type RuleVerdict, type ScreenSnapshot } from './rules.js';

export const FALLBACK = {
  /**
   * After a prompt, own rules that have seen nothing busy this long have missed the turn.
   * Shorter than `agent prompt --wait`'s 5 s activity window, so a turn the generic idioms
   * see still counts as activity there.
   */
  missAfterMs: 2500,
} as const;

/** What the registry remembers of the last prompt corral submitted to an agent. */
export interface PromptTrack {
  /** When it was submitted (-Infinity: none yet). */
  promptedAt: number;
  /** The pane's output generation then: a screen that never changed proves nothing. */
  generationAtPrompt: number;
  /** The own rules saw working or blocked since. */
  ownBusySincePrompt: boolean;
  /** The own rules missed the turn: the generic idioms decide until the own rules see work. */
  missedTurn: boolean;
}

export function newPromptTrack(): PromptTrack {
  return { promptedAt: -Infinity, generationAtPrompt: 0, ownBusySincePrompt: false, missedTurn: false };
}

/** A prompt was just submitted (the pane's output generation is `generation`). */
export function notePrompt(track: PromptTrack, now: number, generation: number): void {
  track.promptedAt = now;
  track.generationAtPrompt = generation;
  track.ownBusySincePrompt = false;
}

export interface Decision {
  verdict: RuleVerdict;
  /** The rule set that decided: the kind's own or the generic set. */
  rules: AgentRules;
  /** Why the generic set decided in place of the kind's own (null when the own rules did). */
  fallback: string | null;
}

function busy(verdict: RuleVerdict): boolean {
  return verdict.status === 'working' || verdict.status === 'blocked';
}

/** A prompt was submitted, the screen changed since, and the own rules saw no work in time. */
function missedTurn(track: PromptTrack, now: number, generation: number): boolean {
  if (track.missedTurn || track.ownBusySincePrompt || track.promptedAt === -Infinity) return track.missedTurn;
  return now - track.promptedAt >= FALLBACK.missAfterMs && generation !== track.generationAtPrompt;
}

/** The verdict on `snap`: the own rules', or the generic rules' when the own cannot be trusted here. */
export function decide(own: AgentRules, generic: AgentRules | null, snap: ScreenSnapshot, track: PromptTrack, now: number, generation: number): Decision {
  const mine = evaluateRules(own, snap);
  if (own.generic || generic === null) return { verdict: mine, rules: own, fallback: null };
  if (busy(mine)) {
    track.ownBusySincePrompt = true;
    track.missedTurn = false;
    return { verdict: mine, rules: own, fallback: null };
  }
  if (missedTurn(track, now, generation)) track.missedTurn = true;
  const doubt =
    own.verifiedWith === null
      ? "the kind's own rules are unverified and saw nothing busy"
      : track.missedTurn
        ? `the kind's own rules saw no work within ${FALLBACK.missAfterMs} ms of a prompt that changed the screen`
        : null;
  if (doubt === null) return { verdict: mine, rules: own, fallback: null };
  const theirs = evaluateRules(generic, snap);
  return busy(theirs) ? { verdict: theirs, rules: generic, fallback: doubt } : { verdict: mine, rules: own, fallback: null };
}
