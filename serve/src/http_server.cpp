#include "kforge/serve/http_server.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <stdexcept>

#include "http_state.hpp"

namespace kforge::serve {
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// Over the connection limit: a short 503 and close, written without waiting for the client.
void refuse(tcp::socket socket) {
  static const std::string kBody =
      R"({"error":{"message":"too many connections; retry later","type":"server_busy","param":null,"code":503}})";
  static const std::string kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
      "Connection: close\r\nContent-Length: " +
      std::to_string(kBody.size()) + "\r\n\r\n" + kBody;
  boost::system::error_code ec;
  socket.non_blocking(true, ec);
  socket.write_some(net::buffer(kBusy), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
}

void accept_next(HttpServer::State& state) {
  state.acceptor.async_accept(net::make_strand(state.io), [&state](boost::system::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !state.acceptor.is_open()) return;
    if (!ec) {
      if (state.connections.load() >= state.options.max_connections) {
        ++state.metrics.rejected;
        refuse(std::move(socket));
      } else {
        start_session(std::move(socket), state);
      }
    }
    accept_next(state);  // an accept error (out of descriptors) costs that connection, not the listener
  });
}

}  // namespace

HttpServer::HttpServer(const ServerOptions& options, ServedModel model, Batcher& batcher, Metrics& metrics)
    : state_(new State{options, std::move(model), batcher, metrics}) {
  boost::system::error_code ec;
  const auto address = net::ip::make_address(options.host, ec);
  if (ec) throw std::runtime_error("--host " + options.host + " is not an IP address: " + ec.message());
  const tcp::endpoint endpoint(address, options.port);
  const std::string where = options.host + ":" + std::to_string(options.port);
  state_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) state_->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) state_->acceptor.bind(endpoint, ec);
  if (!ec) state_->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
}

HttpServer::~HttpServer() = default;

unsigned short HttpServer::port() const { return state_->acceptor.local_endpoint().port(); }

void HttpServer::run() {
  accept_next(*state_);
  state_->io.run();
}

void HttpServer::stop() {
  net::post(state_->io, [this] {
    boost::system::error_code ec;
    state_->acceptor.close(ec);
    state_->io.stop();
  });
}

}  // namespace kforge::serve
