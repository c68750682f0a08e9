// Task shards (archive.hpp, read_shard): any file, damaged or forged, either reads or throws std::runtime_error
// starting with its path, and leaves no HDF5 object open. The input is written to a file first: HDF5 reads files.
#include <hdf5.h>

#include <stdexcept>

#include "fuzz_support.hpp"
#include "kforge/jobs/archive.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kforge::fuzz::ScratchFile scratch("0000.h5");
  const auto& path = scratch.write(data, size);
  try {
    (void)kforge::jobs::read_shard(path);
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind(path.string(), 0) != 0)
      kforge::fuzz::contract_broken(std::string("shard error not starting with the file: ") + e.what());
  }
  // LeakSanitizer cannot tell our handles from libhdf5's own leaks (suppressed): count what is still open.
  if (const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); open != 0)
    kforge::fuzz::contract_broken(std::to_string(open) + " HDF5 objects left open by read_shard");
  return 0;
}
