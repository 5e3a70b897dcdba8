/**
 * Each agent's own session (SPEC §13), for the agent registry: the command line it was
 * started with, the session id that resumes it — from its hooks, the `--resume` in its argv,
 * or its session files, looked up in the background — and who a restored pane's agent was,
 * given back to the agent that shows up there.
 */
import type { PaneRecord } from '../session/model.js';
import { resumedSessionId, resumeSpec } from './resume.js';
import { agentProcessFacts, findSessionId } from './session-files.js';
import { AGENT_NAME, type ExpectedAgent, type TrackedAgent } from './tracked-agent.js';

/** What sessions need of the registry. */
export interface SessionsHost {
  agentIn(pane: PaneRecord): TrackedAgent | null;
  /** The live agents with their panes. */
  agents(): Iterable<{ pane: PaneRecord; agent: TrackedAgent }>;
  paneByAgentName(name: string): PaneRecord | undefined;
  paneCwd?(pane: PaneRecord): string;
  /** The agent's session id changed: its usage record may be found now. */
  sessionResolved(agent: TrackedAgent): void;
}

export class AgentSessions {
  /** Agents a restore started again, by surface id: who they were, given when they show up. */
  private readonly expected = new Map<number, ExpectedAgent>();

  constructor(private readonly host: SessionsHost) {}

  /**
   * Records the command line `agent start` typed: what a restore resumes with. An argv that
   * already resumes a session (`--resume <id>`) names that session.
   */
  noteStarted(pane: PaneRecord, argv: readonly string[]): void {
    const agent = this.host.agentIn(pane);
    if (!agent) return;
    agent.argv = [...argv];
    const resumed = resumedSessionId(agent.kind, argv);
    if (resumed !== null && agent.sessionIdFrom !== 'hook') {
      agent.sessionId = resumed;
      agent.sessionIdFrom = 'argv';
      this.host.sessionResolved(agent);
    }
    this.lookUp(pane, agent);
  }

  /**
   * A restore typed the command that resumes an agent in this pane: when an agent of that
   * kind shows up there it gets back its name, its command line and its session id.
   */
  expectAgent(pane: PaneRecord, expected: ExpectedAgent): void {
    this.expected.set(pane.surfaceId, expected);
  }

  /** The pane closed: nobody shows up there any more. */
  forget(surfaceId: number): void {
    this.expected.delete(surfaceId);
  }

  /** Gives a freshly adopted agent what a restore said it was (its kind must match). */
  applyExpected(pane: PaneRecord, agent: TrackedAgent): void {
    const expected = this.expected.get(pane.surfaceId);
    if (!expected) return;
    this.expected.delete(pane.surfaceId);
    if (expected.kind !== agent.kind) return;
    agent.argv = [...expected.argv];
    if (expected.sessionId !== null) {
      agent.sessionId = expected.sessionId;
      agent.sessionIdFrom = 'argv';
    }
    if (expected.name !== null && AGENT_NAME.test(expected.name) && !this.host.paneByAgentName(expected.name)) agent.name = expected.name;
  }

  /** Looks for the agent's session id in its session files, when nothing better named it. */
  lookUp(pane: PaneRecord, agent: TrackedAgent): void {
    const specs = resumeSpec(agent.kind)?.sessionFiles ?? [];
    if (agent.sessionIdFrom !== null || agent.sessionLookup || agent.pid === null || specs.length === 0) return;
    const claimed = new Set<string>();
    for (const other of this.host.agents()) if (other.agent !== agent && other.agent.sessionId) claimed.add(other.agent.sessionId);
    const facts = agentProcessFacts(agent.pid, this.host.paneCwd?.(pane) ?? '', agent.startedAt, claimed);
    if (!facts) return;
    agent.sessionLookup = true;
    findSessionId(specs, facts)
      .then((id) => {
        if (id === null || agent.sessionIdFrom !== null || this.host.agentIn(pane) !== agent) return;
        agent.sessionId = id;
        agent.sessionIdFrom = 'files';
        this.host.sessionResolved(agent);
      })
      .catch(() => {})
      .finally(() => {
        agent.sessionLookup = false;
      });
  }
}
