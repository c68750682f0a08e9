#include "kforge/engine/engine_tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace kforge::kernels::engine {

ActivationPrecision parse_activation_precision(const std::string& name) {
  if (name == "fp32") return ActivationPrecision::fp32;
  if (name == "bf16") return ActivationPrecision::bf16;
  throw std::invalid_argument("activations '" + name + "': expected fp32 or bf16");
}

const char* activation_precision_name(ActivationPrecision a) {
  return a == ActivationPrecision::bf16 ? "bf16" : "fp32";
}

double logit_tolerance(ActivationPrecision a) {
  return a == ActivationPrecision::bf16 ? kLogitRelToleranceBf16Activations : kLogitRelTolerance;
}

LogitCheck compare_logits(std::span<const double> reference, std::span<const float> got, std::int64_t vocab,
                          double tolerance) {
  LogitCheck out;
  if (vocab <= 0 || reference.size() != got.size() || reference.size() % static_cast<std::size_t>(vocab) != 0) {
    out.ok = false;
    out.evidence = "logits: " + std::to_string(got.size()) + " values for " + std::to_string(reference.size()) +
                   " reference values (vocab " + std::to_string(vocab) + ")";
    return out;
  }
  const std::size_t v = static_cast<std::size_t>(vocab), rows = reference.size() / v;
  for (std::size_t r = 0; r < rows; ++r) {
    double scale = 1.0;
    for (std::size_t i = 0; i < v; ++i) scale = std::max(scale, std::abs(reference[r * v + i]));
    for (std::size_t i = 0; i < v; ++i) {
      const double ref = reference[r * v + i], val = got[r * v + i];
      const double err = std::isfinite(val) ? std::abs(val - ref) : INFINITY;
      out.max_abs = std::max(out.max_abs, err);
      out.max_rel = std::max(out.max_rel, err / scale);
      if (out.ok && !(err <= tolerance * scale)) {
        out.ok = false;
        std::ostringstream text;
        text.precision(9);
        text << "logit row " << r << " token " << i << ": got " << val << ", reference " << ref << " (error " << err
             << " > " << tolerance << " x row scale " << scale << ")";
        out.evidence = text.str();
      }
    }
  }
  return out;
}

std::int64_t argmax(std::span<const double> row) { return std::max_element(row.begin(), row.end()) - row.begin(); }

std::int64_t argmax(std::span<const float> row) { return std::max_element(row.begin(), row.end()) - row.begin(); }

bool greedy_agrees(std::span<const double> reference_row, std::span<const float> got_row, double tolerance) {
  if (reference_row.empty() || reference_row.size() != got_row.size()) return false;
  const auto want = argmax(reference_row), have = argmax(got_row);
  if (want == have) return true;
  double scale = 1.0;
  for (double x : reference_row) scale = std::max(scale, std::abs(x));
  return reference_row[static_cast<std::size_t>(want)] - reference_row[static_cast<std::size_t>(have)] <=
         2.0 * tolerance * scale;
}

}  // namespace kforge::kernels::engine
