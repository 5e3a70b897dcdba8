/**
 * The shell scripts `corral completion [bash|zsh|fish]` prints (SPEC §17). Each is yargs' own
 * template (yargs/build/lib/completion-templates.js) with three changes: it calls
 * `corral completion SHELL --complete -- WORDS…`, which asks yargs' `--get-yargs-completions`
 * machinery for verbs, flags and choices and adds the running server's names
 * (commands/completion.ts), instead of `corral --get-yargs-completions WORDS…`; it passes the
 * words up to the cursor only; and the shell it is for is named, not guessed from $SHELL
 * (yargs formats the answer for the shell $SHELL names, which is not always the one asking).
 * bash's script also joins the pieces bash cuts a word into at `:` and `=` (COMP_WORDBREAKS),
 * so a pane id such as w1:p2 and `--machine=NAME` stay one word.
 */

/** The shells corral prints a completion script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** The shell `$SHELL` names when it is one of ours, else bash (the usual login shell). */
export function shellFromEnv(env: NodeJS.ProcessEnv = process.env): CompletionShell {
  const name = (env.SHELL ?? '').split('/').pop() ?? '';
  return (COMPLETION_SHELLS as readonly string[]).includes(name) ? (name as CompletionShell) : 'bash';
}

const BASH = String.raw`###-begin-corral-completions-###
#
# corral completion for bash (printed by \`corral completion bash\`).
# Install: corral completion bash > ~/.local/share/bash-completion/completions/corral
#      or: corral completion bash >> ~/.bashrc
#
_corral_completions()
{
    local rest="\${COMP_LINE:0:COMP_POINT}" word gap cur prefix
    local -a words=() type_list

    # bash cuts w1:p2 into w1 : p2 and --machine=NAME into --machine = NAME; glue back
    # together the pieces that touch on the line, so corral sees the words as typed.
    for word in "\${COMP_WORDS[@]:0:COMP_CWORD+1}"; do
        gap="\${rest%%[![:space:]]*}"
        rest="\${rest#"$gap"}"
        if [[ \${#words[@]} -gt 0 && -z "$gap" ]]; then
            words[\${#words[@]}-1]+="$word"
        else
            words+=("$word")
        fi
        rest="\${rest#"$word"}"
    done
    cur="\${words[\${#words[@]}-1]}"

    # ask corral (yargs' completions and the running server's names) what may come next.
    # see https://stackoverflow.com/a/40944195/7080036 for the spaces-handling awk
    mapfile -t type_list < <(corral completion bash --complete -- "\${words[@]}" 2>/dev/null)
    mapfile -t COMPREPLY < <(compgen -W "$( printf '%q ' "\${type_list[@]}" )" -- "\${cur}" |
        awk '/ / { print "\""$0"\"" } /^[^ ]+$/ { print $0 }')

    # bash replaces only its own last piece of the word ($2): drop what comes before it.
    if [[ -n "$cur" && "$cur" != "$2" && "$cur" == *"$2" ]]; then
        prefix="\${cur%"$2"}"
        COMPREPLY=("\${COMPREPLY[@]#"$prefix"}")
    fi

    # no match: bash falls back to file names (-o default)
    return 0
}
complete -o bashdefault -o default -F _corral_completions corral
###-end-corral-completions-###
`;

const ZSH = String.raw`#compdef corral
###-begin-corral-completions-###
#
# corral completion for zsh (printed by \`corral completion zsh\`).
# Install: mkdir -p ~/.zfunc && corral completion zsh > ~/.zfunc/_corral
#          with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc,
#      or: source <(corral completion zsh)   in ~/.zshrc, after compinit
#
_corral_completions()
{
  local reply
  local si=$IFS
  IFS=$'\n' reply=($(corral completion zsh --complete -- "\${(@)words[1,CURRENT]}" 2>/dev/null))
  IFS=$si
  if [[ \${#reply} -gt 0 ]]; then
    _describe 'values' reply
  else
    _default
  fi
}
if [[ "\${zsh_eval_context[-1]}" == "loadautofunc" ]]; then
  _corral_completions "$@"
else
  compdef _corral_completions corral
fi
###-end-corral-completions-###
`;

const FISH = String.raw`###-begin-corral-completions-###
#
# corral completion for fish (printed by \`corral completion fish\`).
# Install: corral completion fish > ~/.config/fish/completions/corral.fish
#
function __corral_completions
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l found (corral completion fish --complete -- $tokens "$current" 2>/dev/null)
    if set -q found[1]
        printf '%s\n' $found
    else
        # nothing to offer: file names, as bash and zsh fall back to
        __fish_complete_path "$current"
    end
end
complete -c corral -f -a '(__corral_completions)'
###-end-corral-completions-###
`;

/** The completion script for `shell`. */
export function completionScript(shell: CompletionShell): string {
  // String.raw keeps the shells' backslashes; the template's own escapes (\` \${) are undone here.
  const raw = { bash: BASH, zsh: ZSH, fish: FISH }[shell];
  return raw.replace(/\\([`$])/g, '$1');
}
