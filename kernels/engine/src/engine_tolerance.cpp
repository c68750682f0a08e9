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

double logit_row_scale(std::span<const double> reference_row) {
  double scale = 1.0;
  for (const double x : reference_row) scale = std::max(scale, std::abs(x));
  return scale;
}

double logit_error(double reference, float got) { return std::isfinite(got) ? std::abs(got - reference) : INFINITY; }

bool acceptable_choice(std::span<const double> reference_row, std::size_t token, double tolerance, double scale) {
  const auto best = static_cast<std::size_t>(argmax(reference_row));
  return best == token || reference_row[best] - reference_row[token] <= 2.0 * tolerance * scale;
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
    const double scale = logit_row_scale(reference.subspan(r * v, v));
    for (std::size_t i = 0; i < v; ++i) {
      const double ref = reference[r * v + i];
      const float val = got[r * v + i];
      const double err = logit_error(ref, val);
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
  return acceptable_choice(reference_row, static_cast<std::size_t>(argmax(got_row)), tolerance,
                           logit_row_scale(reference_row));
}

}  // namespace kforge::kernels::engine
