#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kforge/scheduler/executors/executor.hpp"

namespace fs = std::filesystem;
using namespace kforge::scheduler;

namespace {
TaskLaunch launch(int task, const fs::path& manifest, const fs::path& log) {
  return TaskLaunch{task, manifest, log, 0, 0, "host"};
}
}  // namespace

TEST(LocalExecutor, CommandIsMpirunWithRanksSiteArgumentsAndTheManifest) {
  LocalExecutorSpec spec;
  spec.ranks_per_task = 3;
  spec.mpirun = "/usr/bin/mpirun";
  spec.mpirun_args = {"--oversubscribe"};
  LocalExecutor ex(spec, "/opt/kforge/bin/kforge-eval");
  auto argv = ex.command_for(launch(4, "/c/g0001/tasks/0004.yaml", "/c/g0001/logs/0004.log"));
  std::vector<std::string> expected{"/usr/bin/mpirun",
                                    "-np",
                                    "3",
                                    "--oversubscribe",
                                    "--bind-to",
                                    "none",
                                    "/opt/kforge/bin/kforge-eval",
                                    "--manifest",
                                    "/c/g0001/tasks/0004.yaml"};
  EXPECT_EQ(argv, expected);
}

TEST(LocalExecutor, ReportsExitCodesAndUnstartableProgramsPerTaskAndKeepsLogs) {
  // A real process stands in for mpirun: `sh -c` with the manifest path deciding the exit code.
  fs::path dir = fs::temp_directory_path() / ("kforge-exec-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path script = dir / "fake-mpirun.sh";
  std::ofstream(script) << "#!/bin/sh\necho \"ran $*\"\ncase \"$*\" in *fail*) exit 3;; esac\nexit 0\n";
  fs::permissions(script, fs::perms::owner_all);
  LocalExecutorSpec spec;
  spec.mpirun = script.string();
  spec.max_concurrent_tasks = 2;
  LocalExecutor ex(spec, "kforge-eval");
  auto ends = ex.run_all({launch(0, "ok.yaml", dir / "0.log"), launch(1, "fail.yaml", dir / "1.log"),
                          launch(2, "ok2.yaml", dir / "2.log")});
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_TRUE(ends[0].succeeded);
  EXPECT_FALSE(ends[1].succeeded);
  EXPECT_EQ(ends[1].reason, "exited with code 3");
  EXPECT_TRUE(ends[2].succeeded);
  std::ifstream log(dir / "1.log");
  std::string line;
  std::getline(log, line);
  EXPECT_NE(line.find("--manifest fail.yaml"), std::string::npos) << line;

  spec.mpirun = (dir / "does-not-exist").string();
  LocalExecutor missing(spec, "kforge-eval");
  auto missing_ends = missing.run_all({launch(0, "m.yaml", dir / "m.log")});
  EXPECT_FALSE(missing_ends[0].succeeded);
  EXPECT_NE(missing_ends[0].reason.find("127"), std::string::npos) << missing_ends[0].reason;
  fs::remove_all(dir);
}
