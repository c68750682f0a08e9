#pragma once
// What the listener and every session of kforge serve share (private to serve/src).
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>

#include "kforge/serve/http_server.hpp"

namespace kforge::serve {

struct HttpServer::State {
  ServerOptions options;
  ServedModel model;
  Batcher& batcher;
  Metrics& metrics;
  // Before io: sessions the io_context destroys at shutdown still count themselves out of these.
  std::atomic<std::uint64_t> next_id{0};
  std::atomic<std::int64_t> connections{0};
  boost::asio::io_context io{1};
  boost::asio::ip::tcp::acceptor acceptor{io};
};

// Serves one accepted connection until it closes (http_session.cpp).
void start_session(boost::asio::ip::tcp::socket socket, HttpServer::State& state);

}  // namespace kforge::serve
