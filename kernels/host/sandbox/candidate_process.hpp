#pragma once
// A host candidate's code runs in a process of its own, never in the harness that verifies and times it
// (docs/isolation.md). The harness (the sandboxed child of the rank) forks this "candidate process", which
// confines itself (confine.hpp: another user when root, Landlock, seccomp), loads the candidate's shared object and
// then serves calls. Arguments travel through an anonymous shared mapping that exists at the same address in
// both processes; the harness copies inputs in, starts one call, measures its wall time itself, stops the process
// (SIGSTOP, so no thread of the candidate runs while the harness reads and checks) and copies the results out.
// The candidate can only ever hand back output bytes, which the harness checks: it never reaches the verdict,
// the clock, the result pipe to the rank, or the harness's memory.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <new>
#include <span>
#include <stdexcept>
#include <string>

#include "kforge/jobs/unique_fd.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::host {

// The candidate ran out of memory (std::bad_alloc in its process): recorded as crash with "out of memory".
class CandidateOutOfMemory : public std::bad_alloc {
 public:
  explicit CandidateOutOfMemory(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

// What one call hands the entry point: up to 16 integers and up to 8 buffers, all in the shared mapping.
struct CallHeader {
  static constexpr int kMaxArgs = 16;
  static constexpr int kMaxBuffers = 8;
  std::int64_t args[kMaxArgs];
  std::uint64_t offsets[kMaxBuffers];  // from the start of the mapping
};

// Runs in the candidate process: calls `entry` with the arguments the header describes (family-specific).
using Invoke = void (*)(void* entry, std::byte* base, const CallHeader& header);

// One argument buffer of a call. Every buffer is copied in before the call and back after it, inputs included,
// so that the harness's checks (inputs untouched, nothing written past the output) see what the candidate did.
struct CallBuffer {
  void* data;
  std::size_t bytes;
};

class CandidateProcess {
 public:
  // The candidate's shared object and entry point symbol (dlopen()ed after confinement), or a function of this
  // program's own image (a baseline, timed the same way as candidates), with the family's invoke adapter.
  CandidateProcess(std::filesystem::path artefact, std::string symbol, Invoke invoke, std::filesystem::path scratch);
  CandidateProcess(void* builtin_entry, Invoke invoke, std::filesystem::path scratch);
  ~CandidateProcess();
  CandidateProcess(const CandidateProcess&) = delete;
  CandidateProcess& operator=(const CandidateProcess&) = delete;

  // Copies the buffers in, runs one call and copies them back. Returns the call's wall time in milliseconds as
  // measured here, from waking the candidate process to its reply. Throws CandidateFault or
  // CandidateOutOfMemory. Starts (or restarts, with a larger mapping) the candidate process when needed.
  double call(std::span<const std::int64_t> args, std::span<const CallBuffer> buffers);

  // The phases of call(), for a timing loop that keeps the copies out of its clock: stage() copies in,
  // run() is the timed part, collect() copies back.
  void stage(std::span<const std::int64_t> args, std::span<const CallBuffer> buffers);
  double run();
  void collect(std::span<const CallBuffer> buffers);

  // Starts the candidate process now (loading the shared object), so that a library that does not load or lacks
  // its entry point fails here: throws CandidateFault with the loader's message.
  void start_now() { ensure_started(0); }

  // How the running candidate process is confined ("" before the first call), for the evidence.
  const std::string& confinement() const { return confinement_; }

  // The candidate process's peak resident memory (VmHWM of /proc/PID/status, read by the harness) in MiB; NaN
  // when no process is running or the figure cannot be read.
  double peak_resident_mib() const;

 private:
  void ensure_started(std::size_t bytes_needed);
  void start(std::size_t mapping_bytes);
  void stop() noexcept;
  [[noreturn]] void fail(const std::string& during);

  std::filesystem::path artefact_;
  std::string symbol_;
  void* builtin_entry_ = nullptr;
  bool builtin_ = false;
  Invoke invoke_;
  std::filesystem::path scratch_;

  std::byte* base_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  pid_t pid_ = -1;
  jobs::UniqueFd command_fd_;  // write end: one byte per call
  jobs::UniqueFd reply_fd_;    // read end: one byte per call, or an error message
  std::string confinement_;
};

// `result` with the candidate process's confinement appended to its evidence when a layer is missing (no Landlock
// in this kernel), so that a record says when its candidate could reach more than docs/isolation.md promises.
TimeResult with_confinement_note(TimeResult result, const std::string& confinement);

// Offsets of `buffers` in a mapping laid out as header page + buffers, each 64-byte aligned; the total size.
std::size_t layout_bytes(std::span<const CallBuffer> buffers);

}  // namespace kforge::kernels::host
