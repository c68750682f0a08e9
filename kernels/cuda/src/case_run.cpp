#include "case_run.hpp"

#include <stdexcept>

#include "checked_call.hpp"

namespace kforge::kernels::cuda {
namespace {

struct GuardDamage {
  std::size_t changed = 0;
  std::size_t first = 0;  // offset of the first changed byte within the guard
};

GuardDamage damage(const Bytes& bytes, std::size_t begin, std::size_t end) {
  GuardDamage d;
  for (std::size_t n = begin; n < end; ++n) {
    if (bytes[n] == std::byte{kPoison}) continue;
    if (d.changed++ == 0) d.first = n - begin;
  }
  return d;
}

}  // namespace

std::string guard_violation(const Bytes& guarded, std::size_t index) {
  if (guarded.size() < 2 * kGuardBytes) throw std::logic_error("guard_violation: buffer smaller than its guards");
  const std::size_t output_end = guarded.size() - kGuardBytes;
  const GuardDamage before = damage(guarded, 0, kGuardBytes);
  const GuardDamage after = damage(guarded, output_end, guarded.size());
  if (before.changed == 0 && after.changed == 0) return "";
  std::string text = "the kernel wrote outside output buffer " + std::to_string(index) + ":";
  if (before.changed != 0)
    text += " " + std::to_string(before.changed) + " guard bytes changed before its start (from byte -" +
            std::to_string(kGuardBytes - before.first) + ")";
  if (after.changed != 0)
    text += std::string(before.changed != 0 ? ";" : "") + " " + std::to_string(after.changed) +
            " guard bytes changed after its end (first at byte +" + std::to_string(after.first) + " past the end)";
  return text + "; a missing bounds check?";
}

CaseRun::CaseRun(const DriverApi& api, const HostCase& hc) : api_(api), hc_(hc) {
  for (const Bytes& in : hc.inputs) {
    inputs_.emplace_back(api, in.size());
    inputs_.back().upload(in);
    input_addresses_.push_back(inputs_.back().address());
  }
  for (std::size_t bytes : hc.output_bytes) {
    // The guard keeps the output's alignment: cuMemAlloc aligns to at least 256 B, kGuardBytes is 1 MiB.
    guarded_outputs_.emplace_back(api, kGuardBytes + bytes + kGuardBytes);
    output_addresses_.push_back(guarded_outputs_.back().address() + kGuardBytes);
  }
  args_ = hc.args(input_addresses_, output_addresses_);
}

void CaseRun::poison(CUstream stream) {
  for (auto& out : guarded_outputs_)
    KFORGE_CU_CHECK(api_.cuMemsetD8Async(static_cast<CUdeviceptr>(out.address()), kPoison, out.size(), stream));
}

CaseReadback CaseRun::read_back(CUstream stream) const {
  std::vector<Bytes> guarded(guarded_outputs_.size()), inputs(inputs_.size());
  for (std::size_t n = 0; n < guarded_outputs_.size(); ++n) guarded_outputs_[n].enqueue_download(guarded[n], stream);
  for (std::size_t n = 0; n < inputs_.size(); ++n) inputs_[n].enqueue_download(inputs[n], stream);
  KFORGE_CU_CHECK(api_.cuStreamSynchronize(stream));  // a fault in the launch before the copies surfaces here

  CaseReadback back;
  for (std::size_t n = 0; n < guarded.size(); ++n) {
    if (back.outside_writes.empty()) back.outside_writes = guard_violation(guarded[n], n);
    const auto begin = guarded[n].begin() + static_cast<std::ptrdiff_t>(kGuardBytes);
    back.outputs.emplace_back(begin, guarded[n].end() - static_cast<std::ptrdiff_t>(kGuardBytes));
  }
  for (std::size_t n = 0; n < inputs.size() && back.modified_inputs.empty(); ++n)
    if (inputs[n] != hc_.inputs[n]) back.modified_inputs = "the kernel modified input buffer " + std::to_string(n);
  return back;
}

}  // namespace kforge::kernels::cuda
