#!/bin/bash
# Runs every command docs/daemon.md shows, literally, from the repository root: the user's commands as an
# unprivileged user created here, `kforged --admin-group kforge-admins` as root (multi-user mode), the
# single-user block as that user. Each line is first looked up verbatim in the doc, so the doc cannot drift from
# what is run. The repository files the commands name and the binaries are copied to a folder the user can read
# (a CI checkout may sit below a private home folder). Also checks the shipped systemd unit with
# systemd-analyze verify (ExecStart pointed at the built kforged).
#   usage: daemon_doc_commands.sh SOURCE_DIR BIN_DIR        (as root: it creates a user and a group)
set -euo pipefail
src=$1
bin=$2
doc=$src/docs/daemon.md
[ "$(id -u)" = 0 ] || { echo "FAIL: run as root: this test creates a user (useradd)" >&2; exit 1; }

work=$(mktemp -d /tmp/kforge-daemon-doc-XXXXXX)
chmod 755 "$work"
user=kfdoc$$
admins=kforge-admins
made_admins=0
daemon=
cleanup() {
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null; fi
  userdel -f "$user" 2>/dev/null || true
  groupdel "$user" 2>/dev/null || true
  if [ "$made_admins" = 1 ]; then groupdel "$admins" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=tests/support/helpers.sh
source "$src/tests/support/helpers.sh"

useradd -M -U -s /usr/sbin/nologin "$user"
getent group "$admins" >/dev/null || { groupadd "$admins"; made_admins=1; }
repo=$work/repo
mkdir -p "$repo/share/examples" "$work/bin" "$work/home"
cp "$src/share/examples/gemm-host.yaml" "$repo/share/examples/"
cp "$bin/kforge" "$bin/kforged" "$bin/kforge-eval" "$work/bin/"
chmod -R a+rX "$repo" "$work/bin"
chown "$user:" "$work/home"
spool=$work/spool
path=$work/bin:/usr/local/bin:/usr/bin:/bin

# The line must be in the doc as written; then it runs from the repository root.
documented() { grep -qxF -- "$1" "$doc" || fail "docs/daemon.md no longer shows: $1"; }
as_user() {  # as_user LINE...: the lines, documented, run in one shell of the user (set -e)
  local script="set -e; cd $repo"
  for line in "$@"; do documented "$line"; script+=$'\n'"$line"; done
  setpriv --reuid="$user" --regid="$user" --init-groups \
    env -i PATH="$path" HOME="$work/home" USER="$user" KFORGE_SPOOL="${KFORGE_SPOOL_FOR_USER:-$spool}" \
    bash -c "$script"
}

# --- multi-user: kforged as root, the user's four commands ---
line='kforged --admin-group kforge-admins'
documented "$line"
(cd "$repo" && exec env PATH="$path" KFORGE_SPOOL="$spool" bash -c "exec $line") 2>"$work/kforged.err" &
daemon=$!
for _ in $(seq 200); do [ -e "$spool/audit.log" ] && break; sleep 0.1; done
[ "$(stat -c %a "$spool/requests")" = 1733 ] || fail "requests/ is not mode 1733"

name=$(as_user 'kforge submit share/examples/gemm-host.yaml')
[ "$name" = gemm-host ] || fail "kforge submit printed '$name'"
dir=$spool/campaigns/$user/gemm-host
for _ in $(seq 200); do [ -e "$dir/campaign.yaml" ] && break; sleep 0.1; done
[ -e "$dir/campaign.yaml" ] || { cat "$work/kforged.err" >&2; fail "the daemon did not take the submit"; }
table=$(as_user 'kforge status')
echo "$table" | grep -Eq "^$user +gemm-host +(queued|running) " || fail "kforge status: $table"
json=$(as_user 'kforge status gemm-host --json')
echo "$json" | grep -q '^{"schema_version":1,' || fail "kforge status NAME --json: $json"
echo "$json" | grep -Eq "\"owner\":\"$user\",\"campaign\":\"gemm-host\",\"state\":\"(queued|running)\"" ||
  fail "kforge status NAME --json: $json"
as_user 'kforge cancel gemm-host'
for _ in $(seq 200); do [ -e "$dir/CANCELLED" ] && break; sleep 0.1; done
[ -e "$dir/CANCELLED" ] || fail "the cancel was not honoured"
[ "$(stat -c %U "$dir/kforge.log" 2>/dev/null || echo "$user")" = "$user" ] || fail "kforge.log is not the user's"
kill -TERM "$daemon"
wait "$daemon" || fail "kforged did not exit 0 on SIGTERM: $(cat "$work/kforged.err")"
daemon=
grep -q "submit uid=$(id -u "$user") user=$user campaign=$user/gemm-host accepted" "$spool/audit.log" ||
  fail "audit.log: $(cat "$spool/audit.log")"

# --- single-user: the user's own daemon (cancel first, so that --once has nothing long to do) ---
# shellcheck disable=SC2016 # $HOME is the user's: expanded by the user's shell, as docs/daemon.md shows
KFORGE_SPOOL_FOR_USER=/nonexistent as_user 'export KFORGE_SPOOL=$HOME/kforge-spool' \
  'kforge submit share/examples/gemm-host.yaml' 'kforge cancel gemm-host' 'kforged --once' >"$work/single.out" 2>&1 ||
  { cat "$work/single.out" >&2; fail "the single-user block failed"; }
[ -e "$work/home/kforge-spool/campaigns/$user/gemm-host/CANCELLED" ] || fail "single-user: not cancelled"
[ "$(stat -c %a "$work/home/kforge-spool")" = 700 ] || fail "single-user spool is not 0700"

# --- the shipped unit parses, with every directive known to this systemd ---
if command -v systemd-analyze >/dev/null; then
  sed "s|/usr/local/bin/kforged|$bin/kforged|" "$src/share/systemd/kforged.service" >"$work/kforged.service"
  systemd-analyze verify "$work/kforged.service" || fail "systemd-analyze verify share/systemd/kforged.service"
else
  echo "note: systemd-analyze not installed; the unit file was not verified"
fi
echo "PASS: docs/daemon.md commands"
