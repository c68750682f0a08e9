#pragma once
// kforge serve's HTTP side (docs/serving.md): Boost.Beast on one I/O thread, one session per connection, the
// OpenAI routes, and the limits that keep a hostile or broken client from taking the server down (connections,
// header and body size, JSON nesting, the time a request may take to arrive, the time a client may take to read).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kforge/serve/batcher.hpp"
#include "kforge/serve/completion_request.hpp"
#include "kforge/serve/metrics.hpp"
#include "kforge/serve/tokenizer.hpp"

namespace kforge::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  unsigned short port = 8000;  // 0: any free port (HttpServer::port() says which)
  std::int64_t max_connections = 1024;
  std::size_t max_body_bytes = 1 << 20;
  std::chrono::seconds read_timeout{30};   // from a request's first byte to its last (slow clients are cut off)
  std::chrono::seconds write_timeout{60};  // for each write to a client that does not read
};

// What the routes serve.
struct ServedModel {
  std::string name;
  std::int64_t created = 0;
  std::vector<std::int32_t> eos;  // stop a request unless it sets ignore_eos
  RequestLimits limits;
  const Tokenizer* tokenizer = nullptr;
};

class HttpServer {
 public:
  // Binds and listens now (throws std::runtime_error naming the address when it cannot).
  HttpServer(const ServerOptions& options, ServedModel model, Batcher& batcher, Metrics& metrics);
  ~HttpServer();
  unsigned short port() const;
  void run();   // serves until stop()
  void stop();  // thread-safe (a signal handler's thread included)

  struct State;  // what the listener and its sessions share (src/http_state.hpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace kforge::serve
