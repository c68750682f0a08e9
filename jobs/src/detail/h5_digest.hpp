#pragma once
// Content digest of a kforge HDF5 file (docs/archive-schema.md, "What binds a file to its campaign"): SHA-256
// over the attributes that say whose and which file it is (campaign id, kind, generation, task, ...) and over
// the values of every dataset, read back through HDF5. Stored as the root attribute `content_sha256`; a reader
// recomputes it, so a changed attribute, a swapped table or bytes changed in the global heap (where strings
// live, which Fletcher32 on the chunks does not cover) are all refused.
#include <hdf5.h>

#include <string>

namespace kforge::jobs::h5 {

// Hex SHA-256 of the file's binding attributes and all dataset values, in the canonical form the Python reader
// (share/python/kforge_archive.py, content_digest) computes too.
std::string content_digest(hid_t file);

// Writes `content_sha256` (call last, after every dataset and attribute is written).
void write_content_digest(hid_t file);

// Throws std::runtime_error when `content_sha256` is missing or differs from the recomputed digest.
void check_content_digest(hid_t file);

}  // namespace kforge::jobs::h5
