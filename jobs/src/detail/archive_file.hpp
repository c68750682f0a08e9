#pragma once
// What every kforge HDF5 file shares: provenance root attributes, a "kind", a schema version, the
// temp-file publication protocol on write and the checks on read.
#include <filesystem>
#include <functional>
#include <string>

#include "detail/h5.hpp"
#include "kforge/jobs/archive.hpp"

namespace kforge::jobs::detail {

// Creates (truncating) an HDF5 file at a temp path, to be published by publish_replacing / publish_new.
h5::File create_archive_file(const std::filesystem::path& tmp);
// Writes the content digest (content_sha256), then H5Fflush + H5Fclose, reporting failure (a full disk shows up
// here).
void flush_and_close(h5::File& file);

void write_provenance(hid_t file, const Provenance& p, const std::string& kind);
Provenance read_provenance(hid_t file);

// Opens an existing archive file read-only after checking that it is a whole kforge file of `kind`
// with a schema this build understands. Errors do not name the file; with_file_context adds it.
h5::File open_archive_file(const std::filesystem::path& path, const std::string& kind);

// Refuses a file that is not what its name and `expected` say (archive_place.cpp): its generation / task against
// gen-NNNN.h5 or gNNNN/shards/TTTT.h5 and against `expected`, its campaign id against expected.campaign_id.
void check_place(hid_t file, const std::filesystem::path& path, const std::string& kind,
                 const FileExpectation& expected);
// Refuses a generation file whose whole-file SHA-256 differs from expected.sha256 (its seal); called before HDF5
// parses any table of it, so bytes changed anywhere are refused before they are read.
void check_seal(const std::filesystem::path& path, const FileExpectation& expected);

// Runs body and turns any exception into std::runtime_error "PATH: <action>: <what went wrong>".
void with_file_context(const std::filesystem::path& path, const std::string& action, const std::function<void()>& body);

}  // namespace kforge::jobs::detail
