#pragma once
// One problem instance on the device as the run stage checks it: inputs uploaded, every output inside a
// guarded allocation (poisoned bytes before and after it), and everything read back on the harness's stream
// right behind the launch.
//
// Why the read-back is an async copy on the harness stream and not a download after a device-wide sync: the
// copy sees exactly what the kernel left when the harness stream's own work completed. Work that escapes that
// stream (another stream, a launch that lands later) cannot fill the output before it is read; the poison is
// still there and the check fails.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device.hpp"
#include "family.hpp"

namespace kforge::kernels::cuda {

// Bytes of poison before and after each output. Larger than the overrun of a kernel that misses a bounds check
// on any verification problem (a whole block tile past the last row: 255 rows x 264 columns x 4 B of gemm is
// 270 KB), so such writes land in a guard and are named. Writes further out hit unmapped memory (an illegal
// address: the launch fails) or another buffer the harness checks.
inline constexpr std::size_t kGuardBytes = std::size_t{1} << 20;
// 0xFF bytes: 0xFFFF and 0xFFFFFFFF are NaN in bf16 and fp32, so an element never written fails any check.
inline constexpr unsigned char kPoison = 0xFF;

// What the device held when the harness stream completed.
struct CaseReadback {
  std::vector<Bytes> outputs;   // without their guards
  std::string outside_writes;   // "" or which guard the kernel wrote into, and where
  std::string modified_inputs;  // "" or which input buffer differs from what was uploaded
};

class CaseRun {
 public:
  CaseRun(const DriverApi& api, const HostCase& hc);  // `hc` must outlive this object

  KernelArgs& args() { return args_; }
  const std::vector<std::uint64_t>& input_addresses() const { return input_addresses_; }
  const std::vector<std::uint64_t>& output_addresses() const { return output_addresses_; }

  // Enqueues kPoison over every output and both of its guards.
  void poison(CUstream stream);
  // Enqueues copies of every guarded output and every input on `stream`, waits for that stream only, and
  // compares guards and inputs. Throws CudaCallError when the stream holds a failed launch.
  CaseReadback read_back(CUstream stream) const;

 private:
  const DriverApi& api_;
  const HostCase& hc_;
  std::vector<DeviceBuffer> inputs_, guarded_outputs_;
  std::vector<std::uint64_t> input_addresses_, output_addresses_;
  KernelArgs args_;
};

// "" when `guarded` (kGuardBytes, the output, kGuardBytes) has only kPoison in both guards; else one sentence
// naming output `index`, how many guard bytes changed before and after it, and the first changed offset.
std::string guard_violation(const Bytes& guarded, std::size_t index);

}  // namespace kforge::kernels::cuda
