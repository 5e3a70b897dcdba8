/** Shared by the rule-file tests: the RuleFileError a rule file's text raises. */
import { expect } from 'vitest';
import { parseRules, RuleFileError } from '../../src/agents/rules.js';

/** Parses `body` as `file` and returns the error it throws (fails the test if none). */
export function parseError(body: string, file = 'assets/agents/demo.toml'): RuleFileError {
  try {
    parseRules(body, file);
  } catch (err) {
    expect(err).toBeInstanceOf(RuleFileError);
    return err as RuleFileError;
  }
  throw new Error('expected a RuleFileError');
}
