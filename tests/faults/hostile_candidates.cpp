#include "hostile_candidates.hpp"

namespace kforge::faults {
namespace {

const char* const kPrologue = R"(#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmath>
#include <string>

static void naive(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k) sum += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = sum;
    }
}
// The pid of the rank: the parent of our parent (the harness).
static long rank_pid() {
  char path[64], buf[512] = {0};
  snprintf(path, sizeof path, "/proc/%d/stat", (int)getppid());
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char* close_paren = strrchr(buf, ')');
  char state;
  long ppid = -1;
  if (close_paren) sscanf(close_paren + 2, "%c %ld", &state, &ppid);
  return ppid;
}
)";

// `attack` is a C++ expression that is true when the attack worked.
std::string attacker(const std::string& attack) {
  return std::string(kPrologue) +
         "\nextern \"C\" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb,\n"
         "                            float* C, int ldc) {\n"
         "  if (" +
         attack +
         ") {\n"
         "    fprintf(stderr, \"ATTACK SUCCEEDED\\n\");\n"
         "    for (int i = 0; i < M; ++i) for (int j = 0; j < N; ++j) C[i * ldc + j] = NAN;\n"
         "    return;\n"
         "  }\n"
         "  naive(M, N, K, A, lda, B, ldb, C, ldc);\n"
         "}\n";
}

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

}  // namespace

std::vector<FaultCandidate> hostile_candidates(const std::string& task_dir) {
  using jobs::Status;
  const std::string manifest = task_dir + "/task.yaml";
  return {
      {"signal the harness", attacker("kill(getppid(), 0) == 0"), Status::ok, "verified"},
      {"signal the rank", attacker("rank_pid() > 0 && kill((pid_t)rank_pid(), 0) == 0"), Status::ok, "verified"},
      {"signal every process (kill -1)", attacker("kill(-1, 0) == 0"), Status::ok, "verified"},
      {"signal its process group", attacker("kill(0, 0) == 0"), Status::ok, "verified"},
      {"read /etc/shadow", attacker("open(\"/etc/shadow\", O_RDONLY) >= 0"), Status::ok, "verified"},
      {"read the task manifest", attacker("open(" + quoted(manifest) + ", O_RDONLY) >= 0"), Status::ok, "verified"},
      {"write into the task folder",
       attacker("open(" + quoted(task_dir + "/pwned-write") + ", O_CREAT | O_WRONLY, 0644) >= 0"), Status::ok,
       "verified"},
      {"overwrite the shard", attacker("open(" + quoted(task_dir + "/shard.h5") + ", O_CREAT | O_WRONLY, 0644) >= 0"),
       Status::ok, "verified"},
      {"write through the rank's /proc cwd",
       attacker("open((\"/proc/\" + std::to_string(rank_pid()) + \"/cwd/pwned-cwd\").c_str(), O_CREAT | O_WRONLY, "
                "0644) >= 0"),
       Status::ok, "verified"},
      {"write /tmp", attacker("open(\"/tmp/kforge-pwned-by-candidate\", O_CREAT | O_WRONLY, 0644) >= 0"), Status::ok,
       "verified"},
      {"open a TCP socket", attacker("socket(AF_INET, SOCK_STREAM, 0) >= 0"), Status::ok, "verified"},
      {"open a unix socket", attacker("socket(AF_UNIX, SOCK_STREAM, 0) >= 0"), Status::ok, "verified"},
      {"open the harness's memory",
       attacker("open((\"/proc/\" + std::to_string(getppid()) + \"/mem\").c_str(), O_RDWR) >= 0"), Status::ok,
       "verified"},
      {"ptrace the harness", attacker("ptrace(PTRACE_ATTACH, getppid(), 0, 0) == 0"), Status::ok, "verified"},
      {"read the harness's memory",
       attacker("[] { char b[8]; iovec l{b, 8}, r{(void*)&naive, 8}; return process_vm_readv(getppid(), &l, 1, &r, "
                "1, 0) >= 0; }()"),
       Status::ok, "verified"},
      {"start a process", attacker("[] { pid_t p = fork(); if (p == 0) _exit(0); return p > 0; }()"), Status::ok,
       "verified"},
      // A well-formed frame ("KFRM", length, checksum, payload) into every descriptor, then a quiet exit: the
      // harness's result pipe is not among them, so nothing reaches the rank.
      {"forge a result frame", std::string(kPrologue) + R"(
extern "C" void kforge_gemm(int, int, int, const float*, int, const float*, int, float*, int) {
  const char payload[] = "verify=ok;max_abs_error=0;time_status=ok;samples_ms=0.2,0.2,0.2";
  unsigned long long length = sizeof payload - 1, hash = 0xcbf29ce484222325ull;
  for (unsigned long long i = 0; i < length; ++i) { hash ^= (unsigned char)payload[i]; hash *= 0x100000001b3ull; }
  char frame[256];
  memcpy(frame, "MRFK", 4);
  memcpy(frame + 4, &length, 8);
  memcpy(frame + 12, &hash, 8);
  memcpy(frame + 20, payload, length);
  for (int fd = 0; fd < 1024; ++fd) (void)!write(fd, frame, 20 + length);
  _exit(0);
}
)",
       Status::crash, "before reporting a result"},
      // Computes each shape once, then hands back the remembered C and spins to 10% of the honest time.
      {"memoise and pad with a spin-wait", std::string(kPrologue) + R"(
static float* memo = nullptr;
static int memo_m = -1, memo_n = -1, memo_k = -1;
static double honest_s = 0;
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  if (M == memo_m && N == memo_n && K == memo_k) {
    const double start = now();
    for (int i = 0; i < M; ++i) memcpy(C + (size_t)i * ldc, memo + (size_t)i * N, sizeof(float) * N);
    while (now() - start < 0.1 * honest_s) {}
    return;
  }
  const double start = now();
  naive(M, N, K, A, lda, B, ldb, C, ldc);
  honest_s = now() - start;
  free(memo);
  memo = (float*)malloc(sizeof(float) * M * N);
  for (int i = 0; i < M; ++i) memcpy(memo + (size_t)i * N, C + (size_t)i * ldc, sizeof(float) * N);
  memo_m = M, memo_n = N, memo_k = K;
}
)",
       Status::cheat_detected, "timed call returned a wrong result"},
      // Writes the "done" reply itself before computing: the harness stops the process as soon as it reads a
      // reply, so the half-computed C is what it checks. It spins a while first, as a candidate that replies early
      // to win time would: without that, on a loaded machine a small C was sometimes complete before the stop landed,
      // and the test (not the harness) was at the mercy of the scheduler.
      {"reply before computing", std::string(kPrologue) + R"(
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int fd = 3; fd < 16; ++fd) (void)!write(fd, "d", 1);
  for (volatile unsigned long spin = 0; spin < 2000000000UL; spin = spin + 1) {
  }
  naive(M, N, K, A, lda, B, ldb, C, ldc);
}
)",
       Status::wrong_result, ""},
  };
}

}  // namespace kforge::faults
