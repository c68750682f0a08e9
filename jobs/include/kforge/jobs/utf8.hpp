#pragma once
// Text that crosses into YAML manifests, briefs and HDF5 UTF-8 strings must be valid UTF-8: YAML cannot hold other
// bytes unchanged (yaml-cpp's emitter turns each into U+FFFD) and h5py refuses to decode them. Checked where such
// text enters (agent children) and where it would be altered (the manifest writer).
#include <string_view>

namespace kforge::jobs {

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence.
bool is_valid_utf8(std::string_view text);

}  // namespace kforge::jobs
