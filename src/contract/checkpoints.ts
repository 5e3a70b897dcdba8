/**
 * Checkpoints on the wire (SPEC §20): what `agent.checkpoints`, `agent.diff` with a turn and
 * `agent.rewind` return. Types only.
 */
import type { WorktreeDiffFile } from './worktrees.js';

/** One checkpoint of an agent: the working tree's files just before a turn (or a rewind). */
export interface CheckpointInfo {
  /** 1, 2, … per agent; a later checkpoint has a higher id. */
  id: number;
  /** The turn it starts (`reason: turn`); for a rewind's, the turn that was current then. */
  turn: number;
  /** ISO time it was taken. */
  at: string;
  /** The prompt's first 80 characters ('' for a rewind, or a person's prompt corral could not read). */
  prompt: string;
  /** The commit object holding the files (`refs/corral/checkpoints/<agent>/<id>`). */
  commit: string;
  reason: 'turn' | 'rewind';
  /** Milliseconds taking it cost. */
  ms: number;
  /** It finished only after the prompt was submitted (a slow disk): the agent may have begun by then. */
  late?: boolean;
  /** Untracked files larger than 16 MiB, left out of it (the first 20). */
  left_out?: string[];
  /** With `counts`: what changed from this checkpoint to the next (or to the files now, for the last). */
  files_changed?: number;
  added?: number;
  removed?: number;
}

/** `agent.checkpoints`. */
export interface AgentCheckpointsResult {
  /** The agent's checkpoint refs are under `refs/corral/checkpoints/<agent>/` (its name, else kind-surface). */
  agent: string;
  /** The checkout its pane works in (the working tree checkpoints are taken of), or null when it is in no git repository. */
  checkout: string | null;
  checkpoints: CheckpointInfo[];
}

/** `agent.diff` with `turn`: what that turn changed, from its checkpoint to the next one (or to the files now). */
export interface CheckpointDiffResult {
  agent: string;
  turn: number;
  /** The checkpoint the turn starts at. */
  from: number;
  /** The next checkpoint, or null: the turn is the current one, compared with the files now. */
  to: number | null;
  files: WorktreeDiffFile[];
  added: number;
  removed: number;
  patch?: string;
  truncated?: boolean;
}

/** `agent.rewind`. */
export interface RewindResult {
  agent: string;
  /** The checkpoint the files were put back to. */
  rewound_to: number;
  /** The checkpoint taken just before (reason `rewind`): rewinding to it undoes this rewind. */
  checkpoint: CheckpointInfo;
  /** The files the rewind changed (status as seen from the files before it to the checkpoint's). */
  files: WorktreeDiffFile[];
}
