// One HTTP connection of kforge serve: reads requests with Beast's parser under the server's limits, routes them,
// and answers; a completion is handed to the batcher and its tokens come back as events on this session's strand.
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <ctime>
#include <deque>
#include <functional>
#include <optional>
#include <random>

#include "http_state.hpp"
#include "kforge/serve/openai_responses.hpp"
#include "kforge/serve/text_stream.hpp"

namespace kforge::serve {
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

std::uint64_t fresh_seed() {
  static thread_local std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::State& state) : stream_(std::move(socket)), state_(state) {
    ++state_.connections;
    ++state_.metrics.connections;
  }
  ~Session() {
    if (job_) job_->cancelled = true;
    --state_.connections;
    --state_.metrics.connections;
  }
  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); });
  }

 private:
  void read_header() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(state_.options.max_body_bytes);
    stream_.expires_after(state_.options.read_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      auto go_on = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      http::async_write(stream_, *go_on, [self = shared_from_this(), go_on](beast::error_code e, std::size_t) {
        if (e) return self->close();
        self->read_body();
      });
      return;
    }
    read_body();
  }

  void read_body() {
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->on_read_error(ec);
      self->stream_.expires_never();
      self->handle(self->parser_->release());
    });
  }

  void on_read_error(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::operation_aborted)
      return close();
    keep_alive_ = false;
    if (ec == http::error::body_limit)
      return reject({413, "the body is larger than " + std::to_string(state_.options.max_body_bytes) + " bytes", ""});
    if (ec == http::error::header_limit) return reject({431, "the request's header is too large", ""});
    reject({400, "malformed HTTP request: " + ec.message(), ""});
  }

  void handle(http::request<http::string_body> req) {
    keep_alive_ = req.keep_alive();
    std::string_view target(req.target().data(), req.target().size());
    target = target.substr(0, target.find('?'));
    const bool get = req.method() == http::verb::get, post = req.method() == http::verb::post;
    if (target == "/health" && get)
      return state_.batcher.healthy() ? send(http::status::ok, "text/plain", "")
                                      : send_error({503, "the engine is not serving", "", "server_error"});
    if (target == "/v1/models" && get)
      return send(http::status::ok, "application/json",
                  models_json(state_.model.name, state_.model.created, state_.model.limits.max_context));
    if (target == "/metrics" && get)
      return send(http::status::ok, "text/plain; version=0.0.4", prometheus_text(state_.metrics, state_.model.name));
    if (target == "/v1/completions" && post) return complete(req.body());
    if (target == "/v1/chat/completions" && post)
      return reject({404, "chat completions are not served yet: use /v1/completions", "", "NotFoundError"});
    const bool known = target == "/health" || target == "/v1/models" || target == "/metrics" ||
                       target == "/v1/completions" || target == "/v1/chat/completions";
    if (known) return reject({405, "method not allowed", "", "invalid_request_error"});
    reject({404, "no route " + std::string(target), "", "NotFoundError"});
  }

  void complete(const std::string& body) {
    auto parsed = parse_completion_request(body, state_.model.limits);
    if (auto* e = std::get_if<ApiError>(&parsed)) return reject(*e);
    request_ = std::get<CompletionRequest>(std::move(parsed));
    auto job = std::make_shared<Job>();
    job->prompt = request_.prompt;
    job->max_tokens = request_.max_tokens;
    job->sampling = request_.sampling;
    job->seed = request_.seed ? *request_.seed : fresh_seed();
    job->stop_tokens = request_.stop_token_ids;
    if (!request_.ignore_eos)
      job->stop_tokens.insert(job->stop_tokens.end(), state_.model.eos.begin(), state_.model.eos.end());
    job->deliver = [self = shared_from_this()](std::vector<JobEvent> events) {
      net::post(self->stream_.get_executor(),
                [self, events = std::move(events)]() mutable { self->on_events(std::move(events)); });
    };
    ids_ = {"cmpl-" + std::to_string(state_.next_id++) + "-" + std::to_string(fresh_seed() % 1000000007),
            static_cast<std::int64_t>(std::time(nullptr)), state_.model.name};
    text_ = TextStream(state_.model.tokenizer);
    generated_.clear();
    stream_done_ = false;
    job_ = job;
    switch (state_.batcher.submit(job)) {
      case Batcher::Admission::accepted:
        break;
      case Batcher::Admission::queue_full:
        job_.reset();
        return reject({429, "the server's queue is full; retry later", "", "rate_limit_exceeded"});
      case Batcher::Admission::stopped:
        job_.reset();
        return reject({503, "the server is stopping or its engine failed", "", "server_error"});
    }
    watch_for_disconnect();
    if (request_.stream) start_stream();
  }

  // While a completion is generated nothing else reads the connection: one read at a time waits for the client to
  // go away (end of stream or a reset), which gives the request's slot back to the batcher before its next step.
  // Bytes a client sends early (a pipelined request) stay in the buffer for the next request (up to 64 KiB).
  void watch_for_disconnect() {
    if (buffer_.size() >= 65536) return;
    watching_ = true;
    stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->watching_ = false;
      if (!ec) self->buffer_.commit(n);
      if (self->after_watch_) {
        auto next = std::move(self->after_watch_);
        self->after_watch_ = nullptr;
        return next();
      }
      if (ec) return self->abandon();
      if (self->job_) self->watch_for_disconnect();
    });
  }

  // Runs `next` once no watching read is outstanding (a connection takes one read at a time).
  void when_not_watching(std::function<void()> next) {
    if (!watching_) return next();
    after_watch_ = std::move(next);
    beast::error_code ec;
    stream_.socket().cancel(ec);
  }

  void start_stream() {
    stream_head_.emplace(http::status::ok, 11);
    stream_head_->set(http::field::server, "kforge");
    stream_head_->set(http::field::content_type, "text/event-stream");
    stream_head_->set(http::field::cache_control, "no-cache");
    stream_head_->keep_alive(keep_alive_);
    stream_head_->chunked(true);
    head_writer_.emplace(*stream_head_);
    writing_ = true;
    stream_.expires_after(state_.options.write_timeout);
    http::async_write_header(stream_, *head_writer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->writing_ = false;
      if (ec) return self->abandon();
      self->write_next();
    });
  }

  void on_events(std::vector<JobEvent> events) {
    if (!job_) return;  // the client went away
    std::vector<std::int32_t> fresh;
    std::string finish, error;
    for (const JobEvent& ev : events) {
      if (ev.token >= 0) fresh.push_back(ev.token);
      if (!ev.finish.empty()) finish = ev.finish, error = ev.error;
    }
    generated_.insert(generated_.end(), fresh.begin(), fresh.end());
    const std::string text = text_.push(fresh, !finish.empty());
    const Usage usage{static_cast<std::int64_t>(request_.prompt.size()), static_cast<std::int64_t>(generated_.size())};
    if (!finish.empty()) job_.reset();
    if (!request_.stream) {
      if (finish.empty()) return;
      if (finish == "abort") return send_error({503, error, "", "server_error"});
      return send(http::status::ok, "application/json", completion_json(ids_, text_.all(), generated_, finish, usage));
    }
    if (!fresh.empty() || (!finish.empty() && finish != "abort"))
      outbox_.push_back(completion_chunk_event(
          ids_, text, fresh, finish.empty() || finish == "abort" ? std::nullopt : std::optional<std::string>(finish)));
    if (finish == "abort") outbox_.push_back("data: " + error_json({503, error, "", "server_error"}) + "\n\n");
    if (!finish.empty()) {
      if (request_.include_usage) outbox_.push_back(usage_chunk_event(ids_, usage));
      outbox_.push_back(kStreamDone);
      stream_done_ = true;
    }
    write_next();
  }

  // Writes the stream's queued events one at a time, then its last chunk.
  void write_next() {
    if (writing_ || !head_writer_) return;
    if (outbox_.empty()) {
      if (!stream_done_) return;
      writing_ = true;
      stream_.expires_after(state_.options.write_timeout);
      net::async_write(stream_, http::make_chunk_last(),
                       [self = shared_from_this()](beast::error_code ec, std::size_t) {
                         self->writing_ = false;
                         self->head_writer_.reset();
                         self->stream_head_.reset();
                         if (ec || !self->keep_alive_) return self->close();
                         self->when_not_watching([self] { self->read_header(); });
                       });
      return;
    }
    auto piece = std::make_shared<std::string>(std::move(outbox_.front()));
    outbox_.pop_front();
    writing_ = true;
    stream_.expires_after(state_.options.write_timeout);
    net::async_write(stream_, http::make_chunk(net::buffer(*piece)),
                     [self = shared_from_this(), piece](beast::error_code ec, std::size_t) {
                       self->writing_ = false;
                       if (ec) return self->abandon();
                       self->write_next();
                     });
  }

  // The client stopped reading or went away mid-stream: its slot goes back to the batcher.
  void abandon() {
    if (job_) job_->cancelled = true;
    job_.reset();
    outbox_.clear();
    close();
  }

  void send(http::status status, const char* content_type, std::string body) {
    auto res = std::make_shared<http::response<http::string_body>>(status, 11);
    res->set(http::field::server, "kforge");
    res->set(http::field::content_type, content_type);
    res->keep_alive(keep_alive_);
    res->body() = std::move(body);
    res->prepare_payload();
    stream_.expires_after(state_.options.write_timeout);
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      const bool keep_alive = res->keep_alive();
      self->when_not_watching([self, keep_alive] { keep_alive ? self->read_header() : self->drain_and_close(); });
    });
  }

  // A request answered with an error before it was served (counted in /metrics as rejected).
  void reject(const ApiError& e) {
    ++state_.metrics.rejected;
    send_error(e);
  }

  void send_error(const ApiError& e) { send(static_cast<http::status>(e.status), "application/json", error_json(e)); }

  // After a last answer to a client that may still be sending (a body over the limit): stop sending, read and drop
  // what still comes until the client closes or the read timeout, then close, so that the client reads the answer
  // instead of a reset.
  void drain_and_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.expires_after(state_.options.read_timeout);
    drain_.resize(16384);
    stream_.async_read_some(net::buffer(drain_), [self = shared_from_this()](beast::error_code e, std::size_t) {
      if (e) return self->close();
      self->drain_and_close();
    });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  beast::tcp_stream stream_;
  HttpServer::State& state_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  // The completion in flight.
  CompletionRequest request_;
  std::shared_ptr<Job> job_;
  CompletionIds ids_;
  std::vector<std::int32_t> generated_;
  TextStream text_{nullptr};
  // A streamed completion's header, then its events.
  std::optional<http::response<http::empty_body>> stream_head_;
  std::optional<http::response_serializer<http::empty_body>> head_writer_;
  std::deque<std::string> outbox_;
  bool writing_ = false, stream_done_ = false;
  bool watching_ = false;              // a read waits for the client to go away (watch_for_disconnect)
  std::function<void()> after_watch_;  // what runs when that read has been cancelled
  std::vector<char> drain_;
};

}  // namespace

void start_session(tcp::socket socket, HttpServer::State& state) {
  std::make_shared<Session>(std::move(socket), state)->start();
}

}  // namespace kforge::serve
