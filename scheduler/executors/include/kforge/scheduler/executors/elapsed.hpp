#pragma once
// Adds the seconds a scope took to a running total (phase timings of the scheduler-overhead benchmark).
#include <chrono>

namespace kforge::scheduler {

class AddElapsedTo {
 public:
  explicit AddElapsedTo(double& total) : total_(total), started_(std::chrono::steady_clock::now()) {}
  ~AddElapsedTo() { total_ += seconds(); }
  AddElapsedTo(const AddElapsedTo&) = delete;
  AddElapsedTo& operator=(const AddElapsedTo&) = delete;
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(); }

 private:
  double& total_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace kforge::scheduler
