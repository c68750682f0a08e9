// /parameters: each record's genome as one typed column per parameter, so that pandas groups by a parameter
// without parsing the canonical text (`params`, which stays the identity). Integers are int64, doubles float64,
// strings vlen UTF-8 without quotes. A parameter whose type differs between records, or that some record lacks,
// is stored as its canonical text (a missing value as ""). Only generation files have it; readers may ignore it.
#include <cstring>
#include <map>
#include <stdexcept>

#include "detail/h5.hpp"
#include "detail/h5_parameters.hpp"
#include "detail/h5_table.hpp"
#include "kforge/jobs/genome.hpp"

namespace kforge::jobs::h5 {
namespace {

enum class Kind { integer, real, text };

struct Column {
  std::string name;
  Kind kind = Kind::integer;
  std::size_t offset = 0;
};

Kind kind_of(const ParamValue& v) {
  if (std::holds_alternative<std::int64_t>(v)) return Kind::integer;
  if (std::holds_alternative<double>(v)) return Kind::real;
  return Kind::text;
}

std::size_t size_of(Kind k) {
  return k == Kind::integer ? sizeof(std::int64_t) : k == Kind::real ? sizeof(double) : sizeof(char*);
}

}  // namespace

void write_parameter_table(hid_t file, const std::vector<EvalRecord>& records) {
  std::vector<Genome> genomes;
  std::map<std::string, std::pair<Kind, std::size_t>> seen;  // name -> (kind, records that have it)
  std::map<std::string, bool> mixed;
  for (const auto& r : records) {
    Genome g;
    try {
      g = Genome::from_text(r.params);
    } catch (const std::invalid_argument&) {
    }
    for (const auto& [name, value] : g.params) {
      auto [it, fresh] = seen.try_emplace(name, kind_of(value), 0);
      if (!fresh && it->second.first != kind_of(value)) mixed[name] = true;
      ++it->second.second;
    }
    genomes.push_back(std::move(g));
  }
  if (seen.empty()) return;
  std::vector<Column> columns;
  std::size_t row_size = 0;
  for (const auto& [name, info] : seen) {
    const Kind k = (mixed[name] || info.second != records.size()) ? Kind::text : info.first;
    columns.push_back({name, k, row_size});
    row_size += size_of(k);
  }
  Datatype type(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, row_size)));
  const Datatype text_type = vlen_string_type();
  for (const auto& c : columns) {
    const hid_t member = c.kind == Kind::integer ? H5T_NATIVE_INT64
                         : c.kind == Kind::real  ? H5T_NATIVE_DOUBLE
                                                 : hid_t(text_type);
    insert_member(type, c.name.c_str(), c.offset, member);
  }
  std::vector<unsigned char> rows(row_size * records.size());
  std::vector<std::string> texts;  // owns the strings the rows point to
  texts.reserve(records.size() * columns.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    unsigned char* row = rows.data() + i * row_size;
    for (const auto& c : columns) {
      const auto it = genomes[i].params.find(c.name);
      if (c.kind == Kind::integer) {
        const std::int64_t v = std::get<std::int64_t>(it->second);
        std::memcpy(row + c.offset, &v, sizeof v);
      } else if (c.kind == Kind::real) {
        const double v = std::get<double>(it->second);
        std::memcpy(row + c.offset, &v, sizeof v);
      } else {
        if (it == genomes[i].params.end())
          texts.emplace_back();
        else if (auto* s = std::get_if<std::string>(&it->second))
          texts.push_back(*s);
        else
          texts.push_back(to_text(it->second));
        const char* p = texts.back().c_str();
        std::memcpy(row + c.offset, &p, sizeof p);
      }
    }
  }
  Dataset ds = create_table(file, "parameters", type, records.size(), TableLayout{});
  if (!records.empty()) KFORGE_H5_CHECK(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()));
}

}  // namespace kforge::jobs::h5
