#pragma once
// Host-side helpers the families share: bf16 conversion (bf16.hpp),
// typed views of byte buffers, and the element-wise tolerance check that produces a CheckOutcome.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bf16.hpp"
#include "family.hpp"

namespace kforge::kernels::cuda {

template <typename T>
Bytes to_bytes(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> from_bytes(const Bytes& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// Accumulates the worst errors over checked elements and keeps the first failure as evidence.
class ToleranceCheck {
 public:
  explicit ToleranceCheck(std::string what) : what_(std::move(what)) {}
  // `index_text` is only built for a failure. Returns false on the first element out of tolerance.
  bool element(double got, double expected, double tolerance, const std::function<std::string()>& index_text);
  CheckOutcome outcome() const { return outcome_; }

 private:
  std::string what_;
  CheckOutcome outcome_;
  double max_abs_ref_ = 0.0;
};

}  // namespace kforge::kernels::cuda
