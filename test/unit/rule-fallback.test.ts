/**
 * The rule fallback (src/agents/rule-fallback.ts): a kind's own rules never do worse than the
 * generic idioms. Unverified rules that see nothing busy give way to a generic working or
 * blocked verdict at once; verified rules give way only after they missed a prompt's turn
 * (no work seen `missAfterMs` after a prompt that changed the screen), until they see work again.
 */
import { describe, expect, it } from 'vitest';
import { decide, FALLBACK, newPromptTrack, notePrompt } from '../../src/agents/rule-fallback.js';
import { parseRules } from '../../src/agents/rules.js';
import { snapshotFromText } from '../../src/agents/screen-snapshot.js';

const GENERIC = parseRules(
  `kind = "generic"
generic = true

[[rule]]
id = "interrupt-hint"
state = "working"
priority = 60
region = "bottom:8"
regex = '\\besc to interrupt\\b'
`,
  'generic.toml',
);

const own = (verified: boolean) =>
  parseRules(
    `kind = "claude"
${verified ? 'verified_with = "claude@1"' : ''}

[[rule]]
id = "old-working"
state = "working"
priority = 60
region = "bottom:8"
contains = "Thinking hard"

[[rule]]
id = "ready"
state = "idle"
priority = 10
region = "bottom:3"
contains = "> "
`,
    'claude.toml',
  );

const NEW_WORKING = snapshotFromText('answer streams\n(esc to interrupt)\n> ', '', '');
const OLD_WORKING = snapshotFromText('Thinking hard\n> ', '', '');
const IDLE = snapshotFromText('all done\n> ', '', '');

describe('the rule fallback', () => {
  it('unverified own rules give way to a generic working verdict at once, and explain why', () => {
    const d = decide(own(false), GENERIC, NEW_WORKING, newPromptTrack(), 0, 1);
    expect(d.verdict.status).toBe('working');
    expect(d.rules.kind).toBe('generic');
    expect(d.fallback).toContain('unverified');
  });

  it('own rules that see work always decide, verified or not', () => {
    for (const verified of [true, false]) {
      const d = decide(own(verified), GENERIC, OLD_WORKING, newPromptTrack(), 0, 1);
      expect(d).toMatchObject({ fallback: null });
      expect(d.verdict.rule?.id).toBe('old-working');
    }
  });

  it('a generic idle screen leaves the own verdict in place', () => {
    const d = decide(own(false), GENERIC, IDLE, newPromptTrack(), 0, 1);
    expect(d.rules.kind).toBe('claude');
    expect(d.verdict.status).toBe('idle');
  });

  it('verified rules keep deciding until they miss a prompt’s turn, then the generic idioms speak until they see work again', () => {
    const rules = own(true);
    const track = newPromptTrack();
    // Without a prompt: the own verdict (idle) stands, however long.
    expect(decide(rules, GENERIC, NEW_WORKING, track, 60_000, 5).rules.kind).toBe('claude');
    notePrompt(track, 100_000, 5);
    expect(decide(rules, GENERIC, NEW_WORKING, track, 100_000 + FALLBACK.missAfterMs - 1, 6).rules.kind).toBe('claude');
    const missed = decide(rules, GENERIC, NEW_WORKING, track, 100_000 + FALLBACK.missAfterMs, 7);
    expect(missed.verdict.status).toBe('working');
    expect(missed.fallback).toContain(`within ${FALLBACK.missAfterMs} ms`);
    // Sticky across prompts while the own rules stay blind…
    notePrompt(track, 200_000, 9);
    expect(decide(rules, GENERIC, NEW_WORKING, track, 200_001, 10).rules.kind).toBe('generic');
    // …until they see work themselves.
    expect(decide(rules, GENERIC, OLD_WORKING, track, 200_002, 11).fallback).toBeNull();
    expect(decide(rules, GENERIC, NEW_WORKING, track, 200_003, 12).rules.kind).toBe('claude');
  });

  it('a prompt that changed nothing on screen proves nothing: the own rules keep deciding', () => {
    const track = newPromptTrack();
    notePrompt(track, 0, 3);
    expect(decide(own(true), GENERIC, NEW_WORKING, track, FALLBACK.missAfterMs * 4, 3).rules.kind).toBe('claude');
  });
});
