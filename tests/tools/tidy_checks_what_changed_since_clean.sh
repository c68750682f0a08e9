#!/usr/bin/env bash
# tools/check-habits.sh clang-tidy checks the translation units changed since tools/tidy-clean-at and those that
# include a header changed since, through another header too (CONTRIBUTING.md, "Habits"). In a scratch repository
# with the real script and .clang-tidy: a finding planted in a header that only an unchanged .cpp includes (through
# a second header) must fail the step; the same tree with the finding gone passes, and a .cpp that includes nothing
# changed is not checked at all.
set -euo pipefail
SRC=$(cd "$1" && pwd)
# shellcheck source=tests/support/helpers.sh
source "$SRC/tests/support/helpers.sh"
command -v clang-tidy-14 > /dev/null || fail "clang-tidy-14 is not installed (./setup.sh installs it)"
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
cd "$scratch"
git init -q -b main .
git config user.email test@kforge.invalid
git config user.name test
mkdir -p tools kernels/include/demo kernels/src build
cp "$SRC/tools/check-habits.sh" tools/
cp "$SRC/.clang-tidy" .
printf '[clang-format]\n[clang-tidy]\n[shellcheck]\n[ruff]\n' > tools/habits-exclusions.txt
printf 'inline int half(int x) { return x / 2; }\n' > kernels/include/demo/math.hpp
printf '#include "demo/math.hpp"\ninline int quarter(int x) { return half(half(x)); }\n' > kernels/include/demo/wrap.hpp
printf '#include "demo/wrap.hpp"\nint use(int x) { return quarter(x); }\n' > kernels/src/user.cpp
printf 'int alone(int x) { return x + 1; }\n' > kernels/src/alone.cpp
printf '[\n' > build/compile_commands.json
for tu in user alone; do
  printf '{"directory": "%s", "file": "kernels/src/%s.cpp", "command": "c++ -std=c++20 -I%s/kernels/include -c kernels/src/%s.cpp"}' \
    "$scratch" "$tu" "$scratch" "$tu" >> build/compile_commands.json
  [[ $tu == user ]] && printf ',\n' >> build/compile_commands.json
done
printf '\n]\n' >> build/compile_commands.json
echo build/ > .gitignore
git add -A
git commit -q -m "clean tree"
git rev-parse HEAD > tools/tidy-clean-at
git add tools/tidy-clean-at
git commit -q -m "record the clean commit"

# bugprone-integer-division: an integer quotient converted to floating point, in the header only.
printf 'inline int half(int x) { return x / 2; }\ninline double ratio(int a, int b) { return a / b * 1.0; }\n' \
  > kernels/include/demo/math.hpp
expect_exit 1 "kernels/include/demo/math.hpp is not clean" tools/check-habits.sh clang-tidy
out=$(tools/check-habits.sh clang-tidy 2>&1 || true)
[[ $out == *"the 1 translation units changed since"* ]] || fail "expected user.cpp alone to be checked: $out"

git checkout -q kernels/include/demo/math.hpp
echo '// a comment' >> kernels/src/alone.cpp
expect_exit 0 "clang-tidy: clean" tools/check-habits.sh clang-tidy
echo "clang-tidy checked the includers of a changed header, and only what changed"
