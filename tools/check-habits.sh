#!/usr/bin/env bash
# The code habits CI enforces (CONTRIBUTING.md, "Habits"), over the files git tracks, each step timed:
#   - clang-format: every C++ file is formatted as .clang-format says (clang-format-14 --dry-run --Werror)
#   - clang-tidy: .clang-tidy's checks over the translation units of build/compile_commands.json that changed
#     since tools/tidy-clean-at (the commit the whole tree was last checked clean at), with those that include a
#     changed header; all of them with KFORGE_TIDY_ALL=1, which then says what to write into that file
#   - shellcheck: every shell script (*.sh, *.sbatch, *.sbatch.in, files with a bash or sh #! line), .shellcheckrc
#   - ruff: every Python file, ruff.toml (ruff is not packaged by Debian 12: a pinned ruff from PyPI in
#     build/habits-venv, for this check only; the product's Python uses Debian's python3 alone)
# What is not clean yet is listed in tools/habits-exclusions.txt, per step: a file not listed there must be clean,
# and a listed file that is clean now or gone fails the step too, so that the list only shrinks.
#   tools/check-habits.sh [STEP...]       (default: all four steps; run ./setup.sh first for compile_commands.json)
# Environment: KFORGE_BUILD (build tree, default build), KFORGE_HABITS_JOBS (parallel clang-format and clang-tidy
# processes, default nproc), KFORGE_RUFF (a ruff binary to use instead of the pinned one), KFORGE_TIDY_SINCE (a
# commit: clang-tidy checks the translation units changed since it; default tools/tidy-clean-at, else where the
# branch left main), KFORGE_TIDY_ALL=1 (clang-tidy checks every translation unit: 8 to 9 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${KFORGE_BUILD:-build}
jobs=${KFORGE_HABITS_JOBS:-$(nproc)}
ruff_version=0.17.6
exclusions=tools/habits-exclusions.txt
all_steps=(clang-format clang-tidy shellcheck ruff)
steps=("$@")
((${#steps[@]})) || steps=("${all_steps[@]}")
for step in "${steps[@]}"; do
  [[ " ${all_steps[*]} " == *" $step "* ]] || {
    echo "usage: tools/check-habits.sh [${all_steps[*]}]..." >&2
    exit 2
  }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# excluded STEP: the files tools/habits-exclusions.txt lists under [STEP], one a line, comments dropped.
excluded() {
  awk -v section="[$1]" '
    /^\[/ { inside = ($1 == section); next }
    inside { sub(/#.*/, ""); gsub(/[ \t]+/, ""); if ($0 != "") print }' "$exclusions" | sort -u
}

# judge STEP UNCLEAN CHECKED: compares the files a step found unclean with its exclusions; CHECKED lists the files
# the step looked at (a listed file it did not look at must still exist). Prints the verdict; fails on news.
judge() {
  local step=$1 unclean=$2 checked=$3 bad=0 file
  excluded "$step" > "$work/$step.excluded"
  sort -u "$unclean" -o "$unclean"
  while read -r file; do
    echo "$step: $file is not clean (fix it; tools/habits-exclusions.txt lists only what predates the check)"
    bad=1
  done < <(comm -23 "$unclean" "$work/$step.excluded")
  while read -r file; do
    if [[ ! -e $file ]]; then
      echo "$step: $file is listed in tools/habits-exclusions.txt but does not exist: remove or rename the entry"
      bad=1
    elif grep -qxF "$file" "$checked"; then
      echo "$step: $file is clean now: remove it from tools/habits-exclusions.txt"
      bad=1
    fi
  done < <(comm -13 "$unclean" "$work/$step.excluded")
  local tolerated
  tolerated=$(comm -12 "$unclean" "$work/$step.excluded" | wc -l)
  echo "$step: $(wc -l < "$checked") files checked, $tolerated listed as not clean yet"
  return "$bad"
}

step_clang_format() {
  git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' > "$work/cpp"
  # One file per process, each naming its file in one short write when it is unclean (parallel processes writing
  # their diagnostics to one log would interleave them mid-line and garble the names).
  # shellcheck disable=SC2016  # $1 is the inner shell's
  xargs -P "$jobs" -I {} sh -c 'clang-format-14 --dry-run --Werror "$1" > /dev/null 2>&1 || echo "$1"' sh {} \
    < "$work/cpp" > "$work/clang-format.unclean"
  judge clang-format "$work/clang-format.unclean" "$work/cpp" || {
    echo "clang-format: what to change: clang-format-14 --dry-run FILE (or -i FILE to apply it)"
    return 1
  }
}

# tidy_base: KFORGE_TIDY_SINCE if set, else the commit tools/tidy-clean-at names (where KFORGE_TIDY_ALL=1 last
# found every translation unit clean: what has not changed since was clean then), else where HEAD left main
# (origin/main or main), or HEAD~1 on main itself; nothing when none of these resolves (a clone without history:
# then only uncommitted changes are checked).
tidy_base() {
  if [[ -n ${KFORGE_TIDY_SINCE:-} ]]; then
    echo "$KFORGE_TIDY_SINCE"
    return
  fi
  local clean_at
  clean_at=$(sed -n 's/^\([0-9a-f]\{40\}\).*/\1/p' tools/tidy-clean-at 2> /dev/null | head -n 1)
  if [[ -n $clean_at ]] && git cat-file -e "$clean_at^{commit}" 2> /dev/null; then
    echo "$clean_at"
    return
  fi
  local main base
  for main in origin/main main; do
    base=$(git merge-base HEAD "$main" 2> /dev/null) || continue
    if [[ $base == "$(git rev-parse HEAD)" ]]; then
      git rev-parse --verify -q HEAD~1 || true
    else
      echo "$base"
    fi
    return
  done
}

# includers_of_changed_headers CHANGED TUS: the translation units of TUS that include a header named in CHANGED,
# directly or through other tracked headers. A header is matched by its path below its include/ folder or, for a
# private header, by its file name (a name shared by two headers checks the includers of both: more, never fewer).
includers_of_changed_headers() {
  local key keys=$work/header-keys headers=$work/headers-affected
  grep -E '\.(hpp|h)$' "$1" > "$headers" || true
  # The closure: every tracked header that includes an affected one is affected too.
  while :; do
    while read -r key; do
      [[ $key == */include/* ]] && echo "${key##*/include/}" || echo "${key##*/}"
    done < "$headers" | sed 's/$/"/; p; s/"$/>/' | sort -u > "$keys"
    [[ -s $keys ]] || return 0
    git ls-files '*.hpp' '*.h' | xargs grep -lF -f "$keys" 2> /dev/null | cat - "$headers" | sort -u > "$headers.next"
    cmp -s "$headers" "$headers.next" && break
    mv "$headers.next" "$headers"
  done
  xargs grep -lF -f "$keys" < "$2" 2> /dev/null || true
}

step_clang_tidy() {
  [[ -f $build/compile_commands.json ]] || {
    echo "clang-tidy: no $build/compile_commands.json: run ./setup.sh (or cmake -S . -B $build) first" >&2
    return 1
  }
  # The tracked sources compiled into the build, less those listed as not clean yet.
  excluded clang-tidy > "$work/clang-tidy.skip"
  /usr/bin/python3 - "$build/compile_commands.json" "$root" <<'PY' | sort -u > "$work/tus"
import json, os, sys
root = sys.argv[2]
for entry in json.load(open(sys.argv[1])):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if path.startswith(root + "/") and "/build" not in path[len(root):]:
        print(os.path.relpath(path, root))
PY
  git ls-files | sort > "$work/tracked"
  comm -12 "$work/tus" "$work/tracked" | comm -23 - "$work/clang-tidy.skip" > "$work/clang-tidy.checked"
  # Every translation unit takes clang-tidy seconds to parse: all ~390 are 8 to 9 minutes on 2 cores, more than
  # CI can give beside the suite. So by default only those changed since tools/tidy-clean-at (see tidy_base),
  # uncommitted changes included, and those that include a changed header; KFORGE_TIDY_ALL=1 checks them all.
  if [[ -z ${KFORGE_TIDY_ALL:-} ]]; then
    local base
    base=$(tidy_base)
    if [[ -n $base ]]; then
      git diff --name-only "$base" -- | sort -u > "$work/changed"
      includers_of_changed_headers "$work/changed" "$work/clang-tidy.checked" > "$work/includers"
      sort -u "$work/changed" "$work/includers" -o "$work/changed"
      # Other checks (or a changed .clang-tidy) make every translation unit new to the checker.
      grep -qx '.clang-tidy' "$work/changed" && cp "$work/clang-tidy.checked" "$work/changed"
      comm -12 "$work/clang-tidy.checked" "$work/changed" > "$work/clang-tidy.since"
      mv "$work/clang-tidy.since" "$work/clang-tidy.checked"
      echo "clang-tidy: the $(wc -l < "$work/clang-tidy.checked") translation units changed since $base, or including" \
           "a header changed since (KFORGE_TIDY_ALL=1: all of them)"
    else
      # A clone without history (git clone --depth 1) cannot say what changed; all of them would not fit CI's time.
      git status --porcelain | sed 's/^...//' | sort -u > "$work/changed"
      comm -12 "$work/clang-tidy.checked" "$work/changed" > "$work/clang-tidy.since"
      mv "$work/clang-tidy.since" "$work/clang-tidy.checked"
      echo "clang-tidy: no history to say what changed: the $(wc -l < "$work/clang-tidy.checked") uncommitted" \
           "translation units only (KFORGE_TIDY_SINCE=REV or KFORGE_TIDY_ALL=1 for more)"
    fi
  fi
  # Each process checks one file into a log of its own (a shared log would interleave lines of parallel runs);
  # -Wno-unknown-warning-option: the build's gcc warning flags clang lacks.
  mkdir -p "$work/tidy"
  # shellcheck disable=SC2016  # $1 and $2 are the inner shell's
  xargs -P "$jobs" -I {} sh -c 'log=$2/$(echo "$1" | tr / %); clang-tidy-14 -p "$3" --quiet \
      --extra-arg=-Wno-unknown-warning-option "$1" > "$log.out" 2> "$log.err"' sh {} "$work/tidy" "$build" \
    < "$work/clang-tidy.checked" || true
  find "$work/tidy" -name '*.out' -exec cat {} + > "$work/clang-tidy.log"  # none when no file was checked
  find "$work/tidy" -name '*.err' -exec cat {} + > "$work/clang-tidy.err"
  grep -E '^/.+:[0-9]+:[0-9]+: (warning|error): .*\[[a-z-]+.*\]$' "$work/clang-tidy.log" | sort -u \
    > "$work/clang-tidy.findings" || true
  sed -E "s|^$root/||; s|:[0-9]+:[0-9]+: .*||" "$work/clang-tidy.findings" > "$work/clang-tidy.unclean"
  # A file that clang-tidy could not parse is not clean either.
  grep -E '^Error while processing ' "$work/clang-tidy.err" | sed -E "s|^Error while processing $root/||; s|\.$||" \
    >> "$work/clang-tidy.unclean" || true
  # Excluded files were not run: judge them as not looked at (they must exist); their headers' findings count.
  local bad=0
  judge clang-tidy "$work/clang-tidy.unclean" "$work/clang-tidy.checked" || bad=1
  if ((!bad)) && [[ -n ${KFORGE_TIDY_ALL:-} ]] && [[ -z $(git status --porcelain --untracked-files=no) ]]; then
    echo "clang-tidy: every translation unit is clean: this line as the first of tools/tidy-clean-at lets later" \
         "runs check only what changed since:"
    git log -1 --format='%H %s'
  fi
  if ((bad)); then
    excluded clang-tidy > "$work/clang-tidy.excluded"
    grep -vF -f <(sed "s|^|$root/|; s|$|:|" "$work/clang-tidy.excluded") "$work/clang-tidy.findings" |
      sed "s|^$root/||" | head -n 60 || true
    grep -B2 -A8 -E '^Error while processing ' "$work/clang-tidy.err" | head -n 40 || true
    return 1
  fi
}

# The tracked shell scripts: by name, or by a #! line naming bash or sh.
shell_scripts() {
  git ls-files | while read -r file; do
    case $file in
      *.sh | *.sbatch | *.sbatch.in) echo "$file" ;;
      *.*) ;;
      *) [[ -f $file ]] && head -c 64 "$file" | head -n 1 | grep -qE '^#!.*[/ ](ba)?sh( |$)' && echo "$file" ;;
    esac
  done
}

step_shellcheck() {
  shell_scripts > "$work/scripts"
  xargs shellcheck -f gcc < "$work/scripts" > "$work/shellcheck.log" 2>&1 || true
  cut -d: -f1 "$work/shellcheck.log" > "$work/shellcheck.unclean"
  judge shellcheck "$work/shellcheck.unclean" "$work/scripts" || {
    excluded shellcheck > "$work/shellcheck.excluded"
    grep -vF -f <(sed 's|$|:|' "$work/shellcheck.excluded") "$work/shellcheck.log" || true
    return 1
  }
}

step_ruff() {
  local ruff=${KFORGE_RUFF:-$build/habits-venv/bin/ruff}
  if [[ -z ${KFORGE_RUFF:-} ]] && ! "$ruff" --version 2> /dev/null | grep -qx "ruff $ruff_version"; then
    echo "ruff: installing ruff $ruff_version from PyPI into $build/habits-venv (for this check only)"
    /usr/bin/python3 -m venv "$build/habits-venv"
    "$build/habits-venv/bin/pip" install --quiet --disable-pip-version-check "ruff==$ruff_version"
  fi
  git ls-files '*.py' > "$work/python"
  xargs "$ruff" check --no-cache --output-format concise < "$work/python" > "$work/ruff.log" 2>&1 || true
  grep -E '^[^ :]+\.py:[0-9]+:[0-9]+: ' "$work/ruff.log" | cut -d: -f1 > "$work/ruff.unclean" || true
  judge ruff "$work/ruff.unclean" "$work/python" || {
    excluded ruff > "$work/ruff.excluded"
    grep -vF -f <(sed 's|$|:|' "$work/ruff.excluded") "$work/ruff.log" || true
    return 1
  }
}

failed=()
for step in "${steps[@]}"; do
  start=$SECONDS
  verdict=ok
  "step_${step//-/_}" || { verdict=FAILED; failed+=("$step"); }
  echo "habits: $step $verdict in $((SECONDS - start)) s"
done
if ((${#failed[@]})); then
  echo "habits: FAILED: ${failed[*]} (CONTRIBUTING.md, \"Habits\")"
  exit 1
fi
echo "habits: ${steps[*]}: clean"
