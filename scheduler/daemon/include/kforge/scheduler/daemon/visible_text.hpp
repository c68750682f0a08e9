#pragma once
// Text from users (request file names, FAILED markers, Slurm ledgers, config errors quoting a value) reaches the
// daemon's log, the audit log and the terminals of root and the admins. Written raw, a newline forges a whole log
// line, a CR rewrites the line on screen and an ESC sequence drives the reader's terminal. Everything written there
// goes through visible() first.
#include <string>
#include <string_view>

namespace kforge::scheduler::daemon {

// `text` with every byte that is not printable shown as a visible escape: \n, \r, \t, \\ and \xNN for other control
// bytes (ESC is \x1b, DEL \x7f), for bytes that are not valid UTF-8, and for the C1 controls U+0080..U+009F (which
// some terminals obey like ESC sequences). Valid UTF-8 text otherwise passes unchanged.
std::string visible(std::string_view text);

}  // namespace kforge::scheduler::daemon
