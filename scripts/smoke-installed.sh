#!/usr/bin/env bash
# corral as a user gets it (SPEC §17): `npm pack` of this checkout (prepack builds), `npm install
# -g` of the tarball into a fresh prefix with a fresh HOME — every install script run for real,
# nothing taken from the checkout — then the installed `corral`, from a directory with no
# checkout around it: doctor, a server, a pane, a command, a read. .ci/run runs it before the
# suite; anyone can: `bash scripts/smoke-installed.sh`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/corral-smoke-XXXXXX")
corral="$work/prefix/bin/corral"
cleanup() {
  [ -x "$corral" ] && XDG_RUNTIME_DIR="$work/run" "$corral" kill-server >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The machine's npm settings, named outright: `--prefix` moves npm's search for its global config
# (a registry, a CA file) into the new prefix, and the fresh HOME hides the user's (`nodedir`).
npm_config_globalconfig=$(npm config get globalconfig)
npm_config_userconfig=$(npm config get userconfig)
npm_config_cache=$(npm config get cache)
export npm_config_globalconfig npm_config_userconfig npm_config_cache
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

packed=$(cd "$root" && npm pack --json --pack-destination "$work" 2>/dev/null)
tarball="$work/$(printf '%s' "$packed" | node -pe 'JSON.parse(require("fs").readFileSync(0))[0].filename')"
printf '%s' "$packed" | node -e 'const [p] = JSON.parse(require("fs").readFileSync(0)); console.log(`smoke: packed ${p.filename}: ${p.entryCount} files, ${(p.size / 1e6).toFixed(2)} MB (${(p.unpackedSize / 1e6).toFixed(2)} MB unpacked)`)'

export HOME="$work/home"
mkdir -p "$HOME"
started=$(date +%s)
npm install --global --prefix "$work/prefix" --allow-scripts=corral,node-pty,re2,better-sqlite3 "$tarball" >"$work/install.log" 2>&1 ||
  { tail -40 "$work/install.log"; echo "smoke: npm install -g of the tarball failed" >&2; exit 1; }
echo "smoke: installed into a fresh prefix in $(( $(date +%s) - started )) s"

export XDG_RUNTIME_DIR="$work/run" XDG_CONFIG_HOME="$HOME/.config" XDG_STATE_HOME="$HOME/.local/state"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
cd "$work"
echo "smoke: corral $("$corral" --version) from $(readlink -f "$corral")"
"$corral" doctor
"$corral" server --detach --scripting >/dev/null
pane=$("$corral" workspace create --cwd "$work" --no-focus | node -pe 'JSON.parse(require("fs").readFileSync(0)).result.root_pane.pane_id')
"$corral" pane run "$pane" 'echo installed-$((6*7))' >/dev/null
"$corral" pane wait-output "$pane" --regex '^installed-42' --timeout 20000 >/dev/null
"$corral" read "$pane" --lines 5 | grep -qx 'installed-42' || { echo "smoke: read did not show the command's output" >&2; exit 1; }
"$corral" kill-server >/dev/null
echo "smoke: the installed corral ran a server, a pane, a command and a read"
