#pragma once
// Requests from `kforge submit` / `kforge cancel` to kforged: one file each in SPOOL/requests, written atomically
// (temp + fsync + rename, mode 0600), named so that sorting the names orders them by time. Who submitted a
// request is not in its text: it is the file's owner, which only root can forge. The daemon acts on a request,
// makes the result durable, and only then deletes the file, so a daemon killed in between acts on it again;
// acting twice on the same request changes nothing.
//
// File format (texts kept byte for byte: the stored campaign.yaml must equal what was submitted):
//   kforge-request 1
//   kind submit|cancel
//   name NAME
//   owner USER            (cancel only, optional: the campaign's owner when it is not the submitter; admins)
//   campaign-bytes N      followed by a newline and N bytes, then a newline   (submit only)
//   site-bytes N          likewise                                            (submit only)
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::scheduler::daemon {

enum class RequestKind { submit, cancel };

struct Request {
  RequestKind kind = RequestKind::submit;
  std::string name;
  std::string owner;          // cancel: whose campaign (empty: the submitter's own)
  std::string campaign_text;  // submit: the campaign YAML as submitted
  std::string site_text;      // submit: the site YAML (the embedded default when none was given)
};

std::string encode_request(const Request& r);
// Throws std::runtime_error "FILE: <what is malformed>".
Request decode_request(const std::string& text, const std::filesystem::path& file);

// A request as the daemon received it: the text and who wrote it.
struct ReceivedRequest {
  Request request;
  uid_t submitter = 0;  // the file's owner
};
// Opens FILE without following a symlink and without blocking on a FIFO, checks it is a regular file with one
// link (a hard link to someone else's file is not their request), takes its owner as the submitter and decodes it.
// Throws std::runtime_error naming the file.
ReceivedRequest receive_request(const std::filesystem::path& file);

// Writes SPOOL/requests/<time>-<pid>-<kind>-<name>.req atomically, mode 0600; returns its path. Throws
// RequestRefused-worthy std::runtime_error with a plain explanation when requests/ is missing or not writable.
std::filesystem::path write_request(const Spool& spool, const Request& r);
// Complete request files, oldest first (temp files of writers still at work are skipped).
std::vector<std::filesystem::path> pending_requests(const Spool& spool);

}  // namespace kforge::scheduler::daemon
