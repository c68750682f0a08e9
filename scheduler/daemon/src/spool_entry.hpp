#pragma once
// One campaign's entry of `kforge status` over a spool (client.hpp, SpoolEntry).
#include "kforge/scheduler/daemon/client.hpp"

namespace kforge::scheduler::daemon {

// C's entry, read by a helper: as C's owner when the caller is root (root's `kforge status` reads a user's folder
// with that user's rights only), as the caller otherwise; with the user's files read by user_file.hpp's rules and
// the helper killed when it does not answer in time (a FIFO where an HDF5 file should be). What cannot be read
// becomes the entry's reason, never an error of the whole command.
SpoolEntry read_campaign_entry(const Spool& spool, const CampaignRef& c);

}  // namespace kforge::scheduler::daemon
