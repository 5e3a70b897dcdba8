/**
 * One agent's usage, read from where its kind keeps it (SPEC §18): a JSON-lines record read as
 * it grows, a JSON document or an SQLite store read whole again when it changes. `refresh`
 * reads what changed; the ledger answers the totals and the turns.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AgentRules } from './rules-schema.js';
import { documentRecords, JsonlTail, UsageLedger, type AgentUsage, type UsageTurn } from './session-usage.js';
import { sqliteRecords } from './sqlite-records.js';
import { expandPath } from './session-files.js';
import { SESSION_ANSWER_LIMITS } from './session-answers.js';

/** Where one agent's counts are: its record file, or its kind's database and its session id. */
export type UsageLocation = { kind: 'record'; file: string } | { kind: 'sqlite'; file: string; session: string };

/** The database a kind's `[usage] sqlite` names for an agent with this environment, or null. */
export function sqliteFileOf(rules: AgentRules, env: Readonly<Record<string, string>>): string | null {
  return rules.usage?.sqlite ? expandPath(rules.usage.sqlite, env) : null;
}

export class UsageSource {
  private ledger: UsageLedger;
  private readonly tail: JsonlTail | null;
  /** The size and mtime the last whole read saw (documents and databases). */
  private seen = '';

  constructor(
    private readonly rules: AgentRules,
    readonly location: UsageLocation,
  ) {
    this.ledger = this.freshLedger();
    this.tail = location.kind === 'record' && rules.answerSession?.format === 'jsonl' ? new JsonlTail(location.file) : null;
  }

  private freshLedger(): UsageLedger {
    return UsageLedger.of(this.rules.usage!, this.rules.answerSession);
  }

  /** The files whose changes mean new counts: the record, or the database and its WAL. */
  watchTargets(): { dir: string; names: readonly string[] } {
    const name = basename(this.location.file);
    return { dir: dirname(this.location.file), names: this.location.kind === 'sqlite' ? [name, `${name}-wal`] : [name] };
  }

  /** Reads what changed; true when the counts may differ. */
  refresh(): boolean {
    if (this.tail) {
      const read = this.tail.read();
      if (read === null) return false;
      if (read.reset) this.ledger = this.freshLedger();
      this.ledger.feed(read.records);
      return read.records.length > 0 || read.reset;
    }
    const stamp = this.stamp();
    if (stamp === null || stamp === this.seen) return false;
    const records = this.readWhole();
    if (records === null) return false;
    this.seen = stamp;
    this.ledger = this.freshLedger();
    this.ledger.feed(records);
    return true;
  }

  private stamp(): string | null {
    const files = this.location.kind === 'sqlite' ? [this.location.file, `${this.location.file}-wal`] : [this.location.file];
    const parts: string[] = [];
    for (const file of files) {
      try {
        const st = statSync(file);
        parts.push(`${st.size}:${st.mtimeMs}`);
      } catch {
        if (file === this.location.file) return null;
        parts.push('-');
      }
    }
    return parts.join('|');
  }

  private readWhole(): unknown[] | null {
    const { location } = this;
    if (location.kind === 'sqlite') return sqliteRecords(location.file, this.rules.usage!.query!, location.session);
    try {
      if (statSync(location.file).size > SESSION_ANSWER_LIMITS.tailBytes) return null;
      return documentRecords(readFileSync(location.file, 'utf8'), this.rules.answerSession?.records ?? null);
    } catch {
      return null;
    }
  }

  usage(): AgentUsage {
    return this.ledger.usage();
  }

  turns(): UsageTurn[] {
    return this.ledger.turnRows();
  }
}
