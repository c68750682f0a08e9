#include "work_distribution.hpp"

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "record_codec.hpp"

namespace kforge::mpi_eval {
namespace {

constexpr int kTagRequest = 7101;  // worker -> 0: "" (first request) or "<index>\n<record text>"
constexpr int kTagAssign = 7102;   // 0 -> worker: one int64, the next index, or -1 for "no more work"
constexpr auto kPollInterval = std::chrono::milliseconds(2);

// Waits for a request without spinning: a busy MPI wait would steal a core from the candidates being timed.
void wait_politely(MPI_Request& request) {
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(kPollInterval);
  }
}

class Results {
 public:
  explicit Results(std::size_t n) : records_(n) {}
  void store(std::size_t index, jobs::EvalRecord r) {
    const std::lock_guard lock(mutex_);
    if (index >= records_.size())
      throw std::runtime_error("a record arrived for unknown candidate index " + std::to_string(index));
    records_[index] = std::move(r);
  }
  std::vector<std::optional<jobs::EvalRecord>> take() { return std::move(records_); }

 private:
  std::mutex mutex_;
  std::vector<std::optional<jobs::EvalRecord>> records_;
};

// The indices still to evaluate, in order, leaving out those whose records are known.
class Queue {
 public:
  Queue(std::size_t n, const std::map<std::size_t, jobs::EvalRecord>& known) : count_(n), known_(known) {}
  std::optional<std::size_t> take() {
    for (;;) {
      const std::size_t i = next_.fetch_add(1);
      if (i >= count_) return std::nullopt;
      if (!known_.count(i)) return i;
    }
  }
  void cancel() { next_.store(count_); }  // hands out nothing more

 private:
  std::size_t count_;
  const std::map<std::size_t, jobs::EvalRecord>& known_;  // read-only while any thread takes
  std::atomic<std::size_t> next_{0};
};

void store_message(const std::string& message, Results& results, int source) {
  const auto newline = message.find('\n');
  std::size_t index = 0;
  const auto [ptr, ec] = std::from_chars(message.data(), message.data() + std::min(newline, message.size()), index);
  if (newline == std::string::npos || ec != std::errc() || ptr != message.data() + newline) {
    throw std::runtime_error("rank " + std::to_string(source) + " sent a result without a candidate index");
  }
  results.store(index, decode_record(std::string_view(message).substr(newline + 1)));
}

// Rank 0's MPI side: answers requests until every worker has been told to stop.
void serve_requests(MPI_Comm comm, int workers, Queue& queue, Results& results) {
  while (workers > 0) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, comm, &arrived, &status);
    if (!arrived) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string message(static_cast<std::size_t>(bytes), '\0');
    MPI_Recv(message.data(), bytes, MPI_CHAR, status.MPI_SOURCE, kTagRequest, comm, MPI_STATUS_IGNORE);
    if (!message.empty()) store_message(message, results, status.MPI_SOURCE);
    const auto next = queue.take();
    const std::int64_t reply = next ? static_cast<std::int64_t>(*next) : -1;
    MPI_Send(&reply, 1, MPI_INT64_T, status.MPI_SOURCE, kTagAssign, comm);
    if (!next) --workers;
  }
}

void work_for_rank0(MPI_Comm comm, const EvaluateFn& evaluate) {
  std::string outgoing;  // the first request carries no record
  for (;;) {
    MPI_Send(outgoing.data(), static_cast<int>(outgoing.size()), MPI_CHAR, 0, kTagRequest, comm);
    std::int64_t index = -1;
    MPI_Request request;
    MPI_Irecv(&index, 1, MPI_INT64_T, 0, kTagAssign, comm, &request);
    wait_politely(request);
    if (index < 0) return;
    const auto i = static_cast<std::size_t>(index);
    outgoing = std::to_string(i) + "\n" + encode_record(evaluate(i));
  }
}

// Rank 0's own evaluations, on a thread that never calls MPI.
void evaluate_locally(Queue& queue, Results& results, const EvaluateFn& evaluate) {
  while (const auto i = queue.take()) results.store(*i, evaluate(*i));
}

}  // namespace

std::vector<std::optional<jobs::EvalRecord>> distribute(const DistributionPlan& plan, const EvaluateFn& evaluate) {
  int rank = 0, size = 1;
  MPI_Comm_rank(plan.comm, &rank);
  MPI_Comm_size(plan.comm, &size);
  if (rank != 0) {
    work_for_rank0(plan.comm, evaluate);
    return {};
  }
  Queue queue(plan.candidate_count, plan.known);
  Results results(plan.candidate_count);
  for (const auto& [i, record] : plan.known) results.store(i, record);
  if (size == 1) {
    evaluate_locally(queue, results, evaluate);
    return results.take();
  }
  std::exception_ptr local_failure;
  std::thread local;
  if (plan.rank0_evaluates) {
    local = std::thread([&] {
      try {
        evaluate_locally(queue, results, evaluate);
      } catch (...) {
        local_failure = std::current_exception();
      }
    });
  }
  try {
    serve_requests(plan.comm, size - 1, queue, results);
  } catch (...) {
    queue.cancel();  // the local thread finishes its current candidate only
    if (local.joinable()) local.join();
    throw;
  }
  if (local.joinable()) local.join();
  if (local_failure) std::rethrow_exception(local_failure);
  return results.take();
}

}  // namespace kforge::mpi_eval
