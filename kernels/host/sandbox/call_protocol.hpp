#pragma once
// The protocol between the harness and a candidate process (candidate_process.hpp, candidate_side.hpp): the two
// descriptors the candidate process gets, and the messages on its reply pipe: one kind byte, then text up to a NUL
// for the kinds that carry text (ready: its confinement; load/confine failed, out of memory, threw: why).
namespace kforge::kernels::host::call_protocol {

inline constexpr int kCommandFd = 3;  // in the candidate process: one kCall byte per call
inline constexpr int kReplyFd = 4;    // in the candidate process: its messages
inline constexpr char kReady = 'R', kLoadFailed = 'E', kConfineFailed = 'S', kCall = 'c', kDone = 'd',
                      kOutOfMemory = 'm', kThrew = 'x';

}  // namespace kforge::kernels::host::call_protocol
