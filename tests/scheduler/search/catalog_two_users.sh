#!/usr/bin/env bash
# The site catalog between two unprivileged users this script creates (root only; removed on exit), as
# docs/catalog.md claims: alice's private campaign is invisible to bob (not listed, not suggested, no warm start);
# her shared one warms bob's next campaign; bob can neither remove nor replace her entry, and an entry he forges
# (naming her archive) or plants (a symbolic link) is refused with the reason.
#   tests/scheduler/search/catalog_two_users.sh BIN_DIR SRC_DIR
set -euo pipefail
bin=$(cd "${1:?usage: $0 BIN_DIR SRC_DIR}" && pwd)
src=$(cd "${2:?usage: $0 BIN_DIR SRC_DIR}" && pwd)
[[ $(id -u) -eq 0 ]] || { echo "needs root (creates two test users)"; exit 1; }
alice=kf-cata-$$ bob=kf-catb-$$
work=$(mktemp -d)
cleanup() {
  pkill -u "$alice" 2>/dev/null || true
  pkill -u "$bob" 2>/dev/null || true
  userdel "$alice" 2>/dev/null || true
  userdel "$bob" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
useradd --system --no-create-home --shell /bin/bash "$alice"
useradd --system --no-create-home --shell /bin/bash "$bob"
chmod 755 "$work"
catalog=$work/catalog
install -d -m 1777 "$catalog"  # how a site shares one (docs/catalog.md)
printf 'site:\n  name: local\n  catalog: %s\n' "$catalog" > "$work/site.yaml"
# The replay example cut to two generations, its measured space named by absolute path.
sed -e 's/generations: 5/generations: 2/' \
    -e "s|replay_cache: ../data/|replay_cache: $src/share/data/|" \
    "$src/share/examples/convolution-replay.yaml" > "$work/campaign.yaml"
chmod 644 "$work/site.yaml" "$work/campaign.yaml"
for u in "$alice" "$bob"; do install -d -m 755 -o "$u" "$work/$u"; done

as() {  # as USER UMASK COMMAND...: in the user's folder, a clean environment
  local user=$1 mask=$2
  shift 2
  setpriv --reuid "$user" --regid "$user" --init-groups --reset-env \
    env PATH="$bin:/usr/bin:/bin" HOME=/nonexistent bash -c "cd $work/$user && umask $mask && $*"
}
fail() { echo "FAIL: $*"; exit 1; }
kf="kforge run ../campaign.yaml --site ../site.yaml"

echo "== alice's private campaign (umask 077)"
as "$alice" 077 "$kf --out private" > "$work/a1.log" 2>&1 || { cat "$work/a1.log"; fail "alice's run"; }
entry=$(grep -o "catalog: entered as [^ ]*" "$work/a1.log" | cut -d' ' -f4)
grep -q "(private)" "$work/a1.log" || fail "alice's entry is not private"
[[ $(stat -c '%a %U' "$entry") == "600 $alice" ]] || fail "entry mode/owner: $(stat -c '%a %U' "$entry")"
sum=$(sha256sum "$entry")

echo "== bob sees nothing of it"
if as "$bob" 022 "kforge suggest ../campaign.yaml --site ../site.yaml" > "$work/b1.log" 2>&1; then
  cat "$work/b1.log"; fail "bob got a suggestion from alice's private campaign"
fi
grep -q "no campaign of this space" "$work/b1.log" || { cat "$work/b1.log"; fail "bob's suggest message"; }
as "$bob" 022 "$kf --out cold" > "$work/b2.log" 2>&1 || { cat "$work/b2.log"; fail "bob's cold run"; }
grep -q "catalog: no earlier campaign of this space" "$work/b2.log" || { cat "$work/b2.log"; fail "bob warm from private"; }

echo "== bob can neither remove nor replace alice's entry"
as "$bob" 022 "rm -f $entry" 2>/dev/null && fail "bob removed alice's entry"
as "$bob" 022 "echo '{}' > mine.json && mv -f mine.json $entry" 2>/dev/null && fail "bob replaced alice's entry"
[[ $(sha256sum "$entry") == "$sum" ]] || fail "alice's entry changed"

echo "== alice shares a campaign (umask 022); bob's next campaign starts warm from it"
as "$alice" 022 "$kf --out shared" > "$work/a2.log" 2>&1 || { cat "$work/a2.log"; fail "alice's shared run"; }
grep -q "(shared)" "$work/a2.log" || fail "alice's second entry is not shared"
as "$bob" 022 "kforge suggest ../campaign.yaml --site ../site.yaml --json" > "$work/b3.json" 2>"$work/b3.err" ||
  { cat "$work/b3.err"; fail "bob's suggest"; }
/usr/bin/python3 - "$work/b3.json" "$work/$alice/shared" "$work/$alice/private" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert sys.argv[2] in doc["sources"], doc["sources"]
assert sys.argv[3] not in doc["sources"], "alice's private archive is a source"
assert doc["suggestions"] and doc["suggestions"][0]["evidence"], doc
PY
as "$bob" 022 "$kf --out warm" > "$work/b4.log" 2>&1 || { cat "$work/b4.log"; fail "bob's warm run"; }
grep -q "catalog: warm start from" "$work/b4.log" || { cat "$work/b4.log"; fail "bob's run is not warm"; }
grep -q "$alice/convolution-replay $work/$alice/shared" "$work/b4.log" || fail "alice's shared campaign not used"
grep -q "$work/$alice/private" "$work/b4.log" && fail "alice's private campaign named in bob's run"
grep -q "^prior $work/$alice/shared (target a100): rank correlation" "$work/b4.log" || fail "no worth line"

echo "== bob's forged and planted entries are refused with the reason"
shared_entry=$(grep -l '"shared"' "$catalog/$(id -u "$alice")"-*.json)
sed "s|$work/$alice/shared|$work/$alice/private|" "$shared_entry" > "$work/forged-private.json"
sed "s|$work/$alice/private|$work/$alice/shared|" "$work/forged-private.json" > "$work/forged-shared.json"
chmod 644 "$work"/forged-*.json
as "$bob" 022 "cp ../forged-private.json ../forged-shared.json $catalog/ && ln -s /etc/passwd $catalog/planted.json"
as "$bob" 022 "kforge suggest ../campaign.yaml --site ../site.yaml" > "$work/b5.log" 2>&1 || true
grep -q "forged-shared.json: .*belongs to $alice, the entry to $bob" "$work/b5.log" || { cat "$work/b5.log"; fail "forged"; }
grep -q "forged-private.json: cannot read .*Permission denied" "$work/b5.log" || { cat "$work/b5.log"; fail "private"; }
grep -q "skipped $catalog/planted.json: cannot open" "$work/b5.log" || { cat "$work/b5.log"; fail "planted link"; }
echo "PASS"
