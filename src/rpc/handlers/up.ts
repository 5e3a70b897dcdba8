/** `workspace.up` (SPEC §5, §10): a workspace from a parsed `up` plan. */
import os from 'node:os';
import { CorralError } from '../../contract/protocol.js';
import { optStrAny } from '../params.js';
import { Checker, FileError, locateIssues } from '../../orchestration/toml-doc.js';
import { checkUpDocument } from '../../orchestration/up-file.js';
import { applyUp } from '../../actions/up-apply.js';
import type { HandlerGroup } from './context.js';

/** Params besides the plan's own keys: `workspace` adds the panes to an existing workspace. */
const EXTRA_PARAMS = ['workspace', 'workspace_id'] as const;

export const upHandlers = {
  'workspace.up': async (p, { core, signal }) => {
    // The same rules as the CLI's file check; paths must arrive absolute (no file to be relative to).
    const check = new Checker();
    const plan = checkUpDocument(check, p, { home: os.homedir() }, EXTRA_PARAMS);
    if (check.issues.length > 0) throw new FileError(locateIssues(check.issues, '', null));
    const workspace = optStrAny(p, ['workspace', 'workspace_id']);
    if (workspace !== undefined && !core.model.workspaces.has(workspace)) {
      throw new CorralError('workspace_not_found', `no workspace "${workspace}"`, { workspace_id: workspace });
    }
    return applyUp(core, plan, { workspace, signal });
  },
} satisfies HandlerGroup;
