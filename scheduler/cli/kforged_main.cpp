// kforged: the campaign daemon. Until the Slurm executor lands it drives one campaign in the foreground,
// exactly as `kforge run` does; the spool-directory daemon comes with the Slurm issue.
#include <cstdlib>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version") {
      std::cout << "kforged " KFORGE_VERSION "\n";
      return 0;
    }
  }
  std::cerr << "kforged " KFORGE_VERSION ": the spool daemon is not built yet; run campaigns with `kforge run`.\n";
  return 2;
}
