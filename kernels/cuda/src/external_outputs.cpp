// Files in, files out: the outside program sees only raw bytes and cases.json, never kforge's reference.
#include "external_outputs.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "kforge/jobs/json_text.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/jobs/text_file.hpp"

namespace kforge::kernels::cuda {
namespace fs = std::filesystem;

namespace {

using jobs::json_number;
using jobs::json_string;

std::string problem_json(const Problem& p) {
  std::string out = "{";
  for (const auto& [name, value] : p) {
    out += (out.size() > 1 ? ", " : "") + json_string(name) + ": ";
    out += name == "inputs" ? json_string(input_class_name(static_cast<InputClass>(value))) : std::to_string(value);
  }
  return out + "}";
}

std::string file_of(const std::string& kind, std::size_t i) { return kind + "-" + std::to_string(i) + ".bin"; }

std::string files_json(const ExternalCase& c, const std::string& kind, const std::vector<std::size_t>& bytes) {
  std::string out = "[";
  for (std::size_t i = 0; i < bytes.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"file\": " + json_string(c.name + "/" + file_of(kind, i)) +
           ", \"bytes\": " + std::to_string(bytes[i]) + "}";
  return out + "]";
}

void write_file(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

Bytes read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string() + " (the outside program writes it)");
  const std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bytes out(data.size());
  std::memcpy(out.data(), data.data(), data.size());
  return out;
}

}  // namespace

std::vector<ExternalCase> external_cases(const CudaFamily& family, const Problem& main, std::uint64_t seed) {
  std::vector<ExternalCase> cases;
  for (const VerificationCase& v : verification_cases(family, main, {}, seed)) {
    std::mt19937_64 rng(v.seed);
    cases.push_back({"case-" + std::to_string(cases.size()), family.make_case(v.problem, rng, true), false});
  }
  std::mt19937_64 rng(seed);
  cases.push_back({"case-" + std::to_string(cases.size()), family.make_case(main, rng, false), true});
  return cases;
}

void write_external_inputs(const CudaFamily& family, const std::vector<ExternalCase>& cases, std::uint64_t seed,
                           const fs::path& dir) {
  std::string json = "{\"schema_version\": 1, \"family\": " + json_string(family.name()) +
                     ", \"seed\": " + std::to_string(seed) + ", \"cases\": [";
  for (const ExternalCase& c : cases) {
    fs::create_directories(dir / c.name);
    std::vector<std::size_t> input_bytes;
    for (std::size_t i = 0; i < c.host.inputs.size(); ++i) {
      write_file(dir / c.name / file_of("input", i), c.host.inputs[i]);
      input_bytes.push_back(c.host.inputs[i].size());
    }
    json += std::string(&c == &cases.front() ? "\n  " : ",\n  ") + "{\"name\": " + json_string(c.name) +
            ", \"problem\": " + problem_json(c.host.problem) +
            ", \"main_problem\": " + (c.main_problem ? "true" : "false") +
            ", \"inputs\": " + files_json(c, "input", input_bytes) +
            ", \"outputs\": " + files_json(c, "output", c.host.output_bytes) + "}";
  }
  // Last and atomically: a cases.json that exists lists only inputs already written in full.
  jobs::write_text_file_atomically(dir / "cases.json", json + "\n]}\n");
}

bool check_external_outputs(const CudaFamily& family, const std::vector<ExternalCase>& cases, const fs::path& dir,
                            std::ostream& json) {
  bool all_ok = true;
  json << "{\"schema_version\": 1, \"family\": " << json_string(family.name()) << ", \"cases\": [";
  for (const ExternalCase& c : cases) {
    std::vector<Bytes> outputs;
    CheckOutcome o;
    for (std::size_t i = 0; i < c.host.output_bytes.size(); ++i) {
      outputs.push_back(read_file(dir / c.name / file_of("output", i)));
      if (outputs.back().size() != c.host.output_bytes[i] && o.evidence.empty())
        o = {jobs::Status::wrong_result, jobs::kNaN, jobs::kNaN,
             c.name + "/" + file_of("output", i) + " has " + std::to_string(outputs.back().size()) +
                 " bytes, the problem's output has " + std::to_string(c.host.output_bytes[i])};
    }
    if (o.evidence.empty()) o = c.host.check(outputs);
    all_ok = all_ok && o.status == jobs::Status::ok;
    json << (&c == &cases.front() ? "\n  " : ",\n  ") << "{\"name\": " << json_string(c.name)
         << ", \"problem\": " << problem_json(c.host.problem)
         << ", \"status\": " << json_string(std::string(jobs::to_string(o.status)))
         << ", \"max_abs_error\": " << json_number(o.max_abs_error)
         << ", \"max_rel_error\": " << json_number(o.max_rel_error) << ", \"evidence\": " << json_string(o.evidence)
         << "}";
  }
  json << "\n], \"ok\": " << (all_ok ? "true" : "false") << "}\n";
  return all_ok;
}

}  // namespace kforge::kernels::cuda
