// exit_codes.hpp against the exit-code tables of docs/cli.md (kforge) and docs/daemon.md (kforged): every code a
// table lists is one the header names, and every code the header gives a binary is in that binary's table.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "kforge/jobs/exit_codes.hpp"

namespace exit_code = kforge::jobs::exit_code;

namespace {

// The codes of the first "| code | meaning |" table of a docs page.
std::set<int> documented_codes(const std::string& page) {
  std::ifstream in(std::string(KFORGE_SOURCE_DIR) + "/docs/" + page);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::size_t table = doc.find("| code | meaning |");
  EXPECT_NE(table, std::string::npos) << page << " has no exit-code table";
  std::set<int> codes;
  std::istringstream lines(doc.substr(table));
  std::string line;
  std::getline(lines, line);  // the header
  std::getline(lines, line);  // |---|---|
  const std::regex row(R"(^\| `?(\d+)`? \|)");
  while (std::getline(lines, line) && line.starts_with("|")) {
    std::smatch m;
    if (std::regex_search(line, m, row)) codes.insert(std::stoi(m[1]));
  }
  return codes;
}

}  // namespace

TEST(ExitCodes, TheTablesOfCliMdAndDaemonMdListTheCodesOfTheHeader) {
  const std::set<int> kforge{exit_code::kSuccess,
                             exit_code::kFailure,
                             exit_code::kUsage,
                             exit_code::kInfrastructure,
                             exit_code::kArchiveDamaged,
                             exit_code::stopped_by_signal(SIGINT),
                             exit_code::stopped_by_signal(SIGTERM)};
  EXPECT_EQ(documented_codes("cli.md"), kforge);
  const std::set<int> kforged{exit_code::kSuccess, exit_code::kFailure, exit_code::kUsage};
  EXPECT_EQ(documented_codes("daemon.md"), kforged);
}

TEST(ExitCodes, AStoppedRunExitsAsAShellReportsTheSignal) {
  EXPECT_EQ(exit_code::stopped_by_signal(SIGINT), 130);
  EXPECT_EQ(exit_code::stopped_by_signal(SIGTERM), 143);
}
