#include "sandbox/cxx_compile.hpp"

#include <chrono>
#include <fstream>
#include <stdexcept>

#include "kforge/kernels/process.hpp"

namespace kforge::kernels::host {
namespace {

constexpr std::size_t kLogTailBytes = 8 * 1024;

std::string tail(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "[... earlier output cut ...]\n" + text.substr(text.size() - bytes);
}

void write_file(const std::filesystem::path& path, const std::string& text, const char* backend) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(std::string(backend) + ": cannot write " + path.string());
}

std::vector<std::string> compiler_command(const jobs::EvalSettings& s, const jobs::Candidate& c, const char* backend) {
  std::vector<std::string> argv = detail::split_on_whitespace(s.compiler);
  if (argv.empty()) throw std::invalid_argument(std::string(backend) + ": evaluation.compiler is empty");
  for (const auto* flags : {&s.compile_flags, &c.compile_flags})
    for (auto& flag : detail::split_on_whitespace(*flags)) argv.push_back(std::move(flag));
  for (const char* fixed : {"-std=c++17", "-shared", "-fPIC", "-o", "candidate.so", "candidate.cpp"})
    argv.emplace_back(fixed);
  return argv;
}

std::string compile_failure_log(const detail::ProcessResult& run, double timeout_s) {
  std::string why;
  if (run.timed_out)
    why = "compiler timed out after " + std::to_string(static_cast<long long>(timeout_s)) + " s";
  else if (run.signal != 0)
    why = "compiler killed by signal " + std::to_string(run.signal);
  else
    why = "compiler exited with status " + std::to_string(run.exit_code);
  return run.output.empty() ? why : why + "\n" + tail(run.output, kLogTailBytes);
}

}  // namespace

const jobs::EvalSettings& settings_of(const EvalContext& ctx, const char* backend) {
  if (ctx.settings == nullptr) throw std::invalid_argument(std::string(backend) + ": EvalContext.settings is null");
  return *ctx.settings;
}

CompileResult compile_shared_object(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx,
                                    const char* backend) {
  const jobs::EvalSettings& s = settings_of(ctx, backend);
  std::filesystem::create_directories(ctx.scratch);
  write_file(ctx.scratch / "candidate.cpp", source, backend);
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(s.compile_timeout_s * 1000.0));
  const detail::ProcessResult run = detail::run_process(compiler_command(s, c, backend), ctx.scratch, timeout);

  CompileResult result;
  result.compile_ms = run.wall_ms;
  result.artefact = std::filesystem::absolute(ctx.scratch / "candidate.so");
  result.ok = run.succeeded() && std::filesystem::exists(result.artefact);
  result.status = result.ok ? jobs::Status::ok : jobs::Status::compile_error;
  result.log = result.ok ? tail(run.output, kLogTailBytes) : compile_failure_log(run, s.compile_timeout_s);
  return result;  // registers, shared memory and spills do not apply on the host: they stay -1
}

}  // namespace kforge::kernels::host
