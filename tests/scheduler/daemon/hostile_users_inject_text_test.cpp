// Attack class 5 of docs/isolation.md, "Users against the daemon": log and terminal injection. kforged runs as an
// administrator starts it from a root shell. The attacker drops a request whose file name carries a newline and a
// whole forged log line, a request whose campaign name carries CR and ESC bytes, and a campaign whose FAILED text
// and Slurm ledger carry terminal escape sequences for root's `kforge status`. Every such byte is written as a
// visible escape; the victim's campaign runs to its end.
#include "hostile_users.hpp"

using namespace kforge::test;

namespace {

bool has_raw_control_bytes(const std::string& text) {
  return text.find_first_of(std::string("\r\x1b\x07", 3)) != std::string::npos;
}

}  // namespace

TEST_F(HostileUsers, UsersTextCannotForgeLogLinesOrDriveRootsTerminal) {
  start_daemon(StartedBy::root_shell);
  const std::string forged = "2099-01-01T00:00:00Z info [kforged] FORGED-LINE";
  drop_file_as(attacker_, spool() / "requests" / ("evil\n" + forged + " .req"), "junk\n");
  drop_file_as(attacker_, spool() / "requests" / "zz-cr.req", "kforge-request 1\nkind submit\nname bad\r\x1b[2Kname\n");

  // A campaign folder of the attacker's whose FAILED text and Slurm ledger hold escape sequences.
  submit(attacker_, "paint", 200);
  const long paint = driver_of(attacker_, "paint");
  freeze_own_campaign(attacker_, "paint", paint);
  const fs::path dir = dir_of(attacker_, "paint");
  drop_file_as(attacker_, dir / "FAILED", "\x1b]0;owned\x07\x1b[2J\x1b[31mred\r\n");
  ASSERT_EQ(sh(attacker_, "mkdir -p " + (dir / "g0000/slurm").string()).code, 0);
  drop_file_as(attacker_, dir / "g0000/slurm/jobs", "4711 0 host\x1b[2J\n");
  kill_own_campaign(attacker_, paint);

  submit(victim_, "victim");
  wait_done(victim_, "victim");

  // The daemon's log: one event per line, the file name's newline shown as \n.
  const std::string log = daemon_log();
  EXPECT_EQ(log.find("\n" + forged), std::string::npos) << "a forged line in the daemon's log:\n" << log;
  EXPECT_NE(log.find("evil\\n" + forged), std::string::npos) << log;
  EXPECT_FALSE(has_raw_control_bytes(log)) << log;
  // The audit log: no CR or ESC from the request.
  const std::string audit = slurp(spool() / "audit.log");
  EXPECT_FALSE(has_raw_control_bytes(audit)) << audit;
  EXPECT_NE(audit.find("bad\\r\\x1b[2Kname"), std::string::npos) << audit;
  // Root's `kforge status`, as a table and as JSON: the sequences as text, none of them raw.
  const Outcome table = kforge_as_root({"status"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_FALSE(has_raw_control_bytes(table.out)) << table.out;
  EXPECT_NE(table.out.find("paint: \\x1b]0;owned\\x07\\x1b[2J\\x1b[31mred\\r"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("4711:host\\x1b[2J"), std::string::npos) << table.out;
  const Outcome json = kforge_as_root({"status", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_FALSE(has_raw_control_bytes(json.out)) << json.out;
  stop_daemon();
}
