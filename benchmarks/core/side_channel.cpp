#include "benchmarks/core/side_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fb {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often rank 0 looks at the clock while it registers the other ranks.
constexpr auto accept_poll_period = std::chrono::milliseconds(100);
constexpr auto connect_attempt_timeout = std::chrono::milliseconds(1000);
constexpr auto bootstrap_timeout = std::chrono::seconds(30);
// Each connection has this long to answer the challenge; idle ones are closed, never waited for
// one after another.
constexpr auto hello_timeout = std::chrono::seconds(5);

using Key = std::array<unsigned char, 32>;
using Nonce = std::array<unsigned char, 16>;
using Mac = std::array<unsigned char, 32>;

// What rank 0 broadcasts over MPI: the key that authenticates every message of the side channel
// (it never crosses the side channel itself), the listener's port, and the IPv4 addresses it
// might be reached at.
struct Rendezvous {
  Key key{};
  std::uint16_t port = 0;
  std::uint8_t address_count = 0;
  std::array<std::uint32_t, 32> addresses{};  // network byte order
};

// Rank 0 greets each connection with a fresh nonce; the member proves it holds the key for that
// nonce and its rank, and rank 0 proves the same back, so a recorded exchange cannot be replayed
// and nobody without the key can register as a rank or answer for one.
struct Hello {
  std::int32_t rank = -1;
  Mac mac{};
};

struct Query {
  std::uint64_t sequence = 0;
  Mac mac{};
};

// A member's answer to rank 0's query: where it is, and the first few links its host lost since
// the job started (a host has few; the count says when there were more).
struct Answer {
  std::uint64_t progress = 0;
  std::uint32_t links_lost_count = 0;
  std::array<std::array<char, 24>, 4> links_lost{};  // NUL-terminated, truncated names
};

Answer encoded(const MemberAnswer& member_answer) {
  const std::vector<std::string>& links_lost = member_answer.links_lost;
  Answer answer;
  answer.progress = member_answer.progress;
  answer.links_lost_count = static_cast<std::uint32_t>(links_lost.size());
  for (std::size_t i = 0; i < std::min(links_lost.size(), answer.links_lost.size()); ++i)
    links_lost[i].copy(answer.links_lost[i].data(), answer.links_lost[i].size() - 1);
  return answer;
}

MemberAnswer decoded(const Answer& answer) {
  MemberAnswer member_answer{answer.progress, {}};
  std::vector<std::string>& names = member_answer.links_lost;
  for (std::size_t i = 0; i < std::min<std::size_t>(answer.links_lost_count, answer.links_lost.size()); ++i)
    names.emplace_back(answer.links_lost[i].data(), strnlen(answer.links_lost[i].data(), answer.links_lost[i].size()));
  if (answer.links_lost_count > answer.links_lost.size())
    names.push_back(fmt::format("{} more", answer.links_lost_count - answer.links_lost.size()));
  return member_answer;
}

struct SignedAnswer {
  Answer answer;
  Mac mac{};
};

void random_bytes(std::span<unsigned char> out) {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) throw std::runtime_error("watchdog: no random bytes");
}

template <class T>
std::string_view bytes_of(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  return {reinterpret_cast<const char*>(&value), sizeof value};
}

// HMAC-SHA256 over what the message is, the connection's nonce and the message's payload.
Mac mac_of(const Key& key, std::string_view purpose, const Nonce& nonce,
           std::initializer_list<std::string_view> payload) {
  std::string message(purpose);
  message.append(reinterpret_cast<const char*>(nonce.data()), nonce.size());
  for (std::string_view part : payload) message.append(part);
  Mac mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), mac.data(), &length);
  return mac;
}

bool same_mac(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

[[noreturn]] void throw_system_error(std::string_view what) {
  throw std::runtime_error(fmt::format("watchdog: {}: {}", what, std::strerror(errno)));
}

void close_quietly(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Reads exactly `size` bytes or fails by the deadline.
bool read_fully(int fd, void* data, std::size_t size, SteadyClock::time_point deadline) {
  auto* bytes = static_cast<char*>(data);
  for (std::size_t done = 0; done < size;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
    pollfd pfd{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&pfd, 1, static_cast<int>(left)) <= 0) return false;
    const ssize_t n = ::recv(fd, bytes + done, size - done, 0);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool send_fully(int fd, const void* data, std::size_t size) {
  return ::send(fd, data, size, MSG_NOSIGNAL) == static_cast<ssize_t>(size);
}

struct InterfaceAddress {
  std::string name;
  std::uint32_t address;  // network byte order
};

std::vector<InterfaceAddress> interface_addresses() {
  std::vector<InterfaceAddress> found;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) throw_system_error("getifaddrs");
  for (ifaddrs* entry = list; entry; entry = entry->ifa_next)
    if (entry->ifa_addr && entry->ifa_addr->sa_family == AF_INET)
      found.push_back({entry->ifa_name, reinterpret_cast<sockaddr_in*>(entry->ifa_addr)->sin_addr.s_addr});
  ::freeifaddrs(list);
  return found;
}

// The address of this host on `spec`: an interface name, or a subnet "a.b.c.d/n" as Open MPI's
// *_if_include take them.
std::optional<std::uint32_t> address_on(std::string_view spec) {
  const auto slash = spec.find('/');
  in_addr subnet{};
  int prefix = -1;
  if (slash != std::string_view::npos) {
    const std::string network(spec.substr(0, slash));
    const std::string bits(spec.substr(slash + 1));
    if (::inet_pton(AF_INET, network.c_str(), &subnet) != 1 || bits.empty() || bits.size() > 2 ||
        bits.find_first_not_of("0123456789") != std::string::npos || std::stoi(bits) > 32)
      return std::nullopt;
    prefix = std::stoi(bits);
  }
  for (const InterfaceAddress& entry : interface_addresses()) {
    if (prefix < 0 && entry.name == spec) return entry.address;
    const std::uint32_t mask = prefix <= 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
    if (prefix >= 0 && (ntohl(entry.address) & mask) == (ntohl(subnet.s_addr) & mask)) return entry.address;
  }
  return std::nullopt;
}

// The one address rank 0 listens on, or none for every address (see WatchdogSettings::interface_name).
std::optional<std::uint32_t> listen_address(const std::string& interface_name,
                                            const std::vector<std::string>& rank_hosts) {
  if (!interface_name.empty()) {
    if (const auto address = address_on(interface_name)) return address;
    // Throwing here would leave the other ranks waiting in the broadcast for ever.
    fmt::print(stderr,
               "warning: --watchdog-interface {} has no IPv4 address on rank 0's host; the watchdog listens "
               "on every address\n",
               interface_name);
    return std::nullopt;
  }
  if (std::all_of(rank_hosts.begin(), rank_hosts.end(), [&](const std::string& host) { return host == rank_hosts[0]; }))
    return htonl(INADDR_LOOPBACK);
  for (const char* variable : {"OMPI_MCA_oob_tcp_if_include", "OMPI_MCA_btl_tcp_if_include"}) {
    const char* value = std::getenv(variable);
    if (!value) continue;
    std::string_view list(value);
    while (!list.empty()) {
      const auto comma = list.find(',');
      if (const auto address = address_on(list.substr(0, comma))) return address;
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
  }
  return std::nullopt;
}

std::vector<std::uint32_t> local_ipv4_addresses() {
  std::vector<std::uint32_t> routable;
  std::vector<std::uint32_t> loopback;
  for (const InterfaceAddress& entry : interface_addresses())
    (ntohl(entry.address) >> 24 == 127 ? loopback : routable).push_back(entry.address);
  // Other hosts reach rank 0 on a routable address; loopback serves ranks on rank 0's host last.
  routable.insert(routable.end(), loopback.begin(), loopback.end());
  return routable;
}

int connect_with_timeout(std::uint32_t address, std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw_system_error("socket");
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(port);
  target.sin_addr.s_addr = address;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0 && errno != EINPROGRESS) {
    close_quietly(fd);
    return -1;
  }
  pollfd pfd{fd, POLLOUT, 0};
  int error = 0;
  socklen_t length = sizeof error;
  if (::poll(&pfd, 1, static_cast<int>(connect_attempt_timeout.count())) != 1 ||
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
    close_quietly(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// Rank 0 keeps one connection per rank; the default limit of 1024 descriptors would cap a job.
void raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

SideChannel::SideChannel(int rank, const std::vector<std::string>& rank_hosts, const std::string& interface_name,
                         const BroadcastFromRankZero& broadcast)
    : rank_(rank) {
  const int nranks = static_cast<int>(rank_hosts.size());
  Rendezvous rendezvous;
  int listener = -1;
  if (rank_ == 0) {
    raise_descriptor_limit();
    listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) throw_system_error("socket");
    const std::optional<std::uint32_t> address = listen_address(interface_name, rank_hosts);
    sockaddr_in bound{};
    bound.sin_family = AF_INET;
    bound.sin_addr.s_addr = address.value_or(htonl(INADDR_ANY));
    socklen_t length = sizeof bound;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&bound), sizeof bound) != 0 ||
        ::listen(listener, SOMAXCONN) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&bound), &length) != 0)
      throw_system_error("listen");
    random_bytes(rendezvous.key);
    rendezvous.port = ntohs(bound.sin_port);
    const auto addresses = address ? std::vector<std::uint32_t>{*address} : local_ipv4_addresses();
    rendezvous.address_count = static_cast<std::uint8_t>(std::min(addresses.size(), rendezvous.addresses.size()));
    std::copy_n(addresses.begin(), rendezvous.address_count, rendezvous.addresses.begin());
  }
  broadcast(std::as_writable_bytes(std::span(&rendezvous, 1)));
  key_ = std::make_unique<Key>(rendezvous.key);
  rendezvous.key.fill(0);

  if (rank_ == 0) {
    member_sockets_.assign(static_cast<std::size_t>(nranks), -1);
    member_nonces_.assign(static_cast<std::size_t>(nranks), {});
    accept_members(listener, nranks);
    close_quietly(listener);
    for (const int fd : member_sockets_) joined_at_start_.push_back(fd >= 0);
  } else {
    join(std::span(rendezvous.addresses).first(rendezvous.address_count), rendezvous.port);
  }
}

SideChannel::~SideChannel() {
  for (int& fd : member_sockets_) close_quietly(fd);
  close_quietly(coordinator_socket_);
}

bool SideChannel::joined_at_start(int member) const {
  return member > 0 && static_cast<std::size_t>(member) < joined_at_start_.size() &&
         joined_at_start_[static_cast<std::size_t>(member)];
}

void SideChannel::join(std::span<const std::uint32_t> addresses, std::uint16_t port) {
  for (std::size_t i = 0; i < addresses.size() && coordinator_socket_ < 0; ++i) {
    int fd = connect_with_timeout(addresses[i], port);
    Nonce nonce{};
    Mac welcome{};
    const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
    if (fd >= 0 && read_fully(fd, nonce.data(), nonce.size(), deadline)) {
      const Hello hello{rank_, mac_of(*key_, "hello", nonce, {bytes_of(rank_)})};
      if (send_fully(fd, &hello, sizeof hello) && read_fully(fd, welcome.data(), welcome.size(), deadline) &&
          same_mac(welcome, mac_of(*key_, "welcome", nonce, {bytes_of(rank_)}))) {
        coordinator_socket_ = fd;
        coordinator_nonce_ = nonce;
      }
    }
    if (coordinator_socket_ < 0) close_quietly(fd);
  }
  // Without the connection this rank still enforces its own deadline; rank 0 will list it as
  // without a side channel if it is the one that hangs.
  if (coordinator_socket_ < 0)
    fmt::print(stderr,
               "fabricbench: rank {}: watchdog cannot reach rank 0 over TCP; continuing with local "
               "deadlines only\n",
               rank_);
}

void SideChannel::accept_members(int listener, int nranks) {
  // Connections that have not proven their rank yet, each with its own deadline. At most this
  // many wait at once; a new one displaces the oldest, so idle connections cannot lock ranks out.
  const std::size_t max_pending = 16 + 2 * static_cast<std::size_t>(nranks);
  struct Pending {
    int fd;
    Nonce nonce;
    SteadyClock::time_point deadline;
    Hello hello;
    std::size_t received;
  };
  std::vector<Pending> pending;
  const auto drop = [&](std::size_t i) {
    close_quietly(pending[i].fd);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
  };
  const auto deadline = SteadyClock::now() + bootstrap_timeout;
  for (int registered = 1; registered < nranks && SteadyClock::now() < deadline;) {
    std::vector<pollfd> pfds{{listener, POLLIN, 0}};
    for (const Pending& p : pending) pfds.push_back({p.fd, POLLIN, 0});
    if (::poll(pfds.data(), pfds.size(), static_cast<int>(accept_poll_period.count())) < 0 && errno != EINTR)
      throw_system_error("poll");
    // Answers first, then new connections, then deadlines.
    for (std::size_t i = pending.size(); i-- > 0;) {
      if (pfds[i + 1].revents == 0) continue;
      Pending& p = pending[i];
      const ssize_t n = ::recv(p.fd, reinterpret_cast<char*>(&p.hello) + p.received, sizeof p.hello - p.received, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) {
        drop(i);
        continue;
      }
      p.received += static_cast<std::size_t>(n);
      if (p.received < sizeof p.hello) continue;
      const int rank = p.hello.rank;
      // A rank out of range, a MAC that does not hold, or a rank registered already: refused.
      if (rank <= 0 || rank >= nranks || !same_mac(p.hello.mac, mac_of(*key_, "hello", p.nonce, {bytes_of(rank)})) ||
          member_sockets_[static_cast<std::size_t>(rank)] >= 0) {
        drop(i);
        continue;
      }
      const Mac welcome = mac_of(*key_, "welcome", p.nonce, {bytes_of(rank)});
      ::fcntl(p.fd, F_SETFL, ::fcntl(p.fd, F_GETFL) & ~O_NONBLOCK);
      if (!send_fully(p.fd, welcome.data(), welcome.size())) {
        drop(i);
        continue;
      }
      const int no_delay = 1;
      ::setsockopt(p.fd, IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay);
      member_sockets_[static_cast<std::size_t>(rank)] = p.fd;
      member_nonces_[static_cast<std::size_t>(rank)] = p.nonce;
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      ++registered;
    }
    if ((pfds[0].revents & POLLIN) != 0) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) {
        if (pending.size() >= max_pending) drop(0);
        Pending p{fd, {}, SteadyClock::now() + hello_timeout, {}, 0};
        random_bytes(p.nonce);
        if (::send(fd, p.nonce.data(), p.nonce.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(p.nonce.size()))
          pending.push_back(p);
        else
          close_quietly(p.fd);
      }
    }
    const auto now = SteadyClock::now();
    for (std::size_t i = pending.size(); i-- > 0;)
      if (pending[i].deadline < now) drop(i);
  }
  for (Pending& p : pending) close_quietly(p.fd);
}

void SideChannel::answer_question(const std::function<MemberAnswer()>& answer) {
  Query query;
  // A query is sent at once; once its first byte is here the rest follows at once. One that
  // does not carry rank 0's MAC for this connection ends the connection: it is not rank 0's.
  if (!read_fully(coordinator_socket_, &query, sizeof query, SteadyClock::now() + std::chrono::seconds(1)) ||
      !same_mac(query.mac, mac_of(*key_, "query", coordinator_nonce_, {bytes_of(query.sequence)})) ||
      query.sequence <= last_question_sequence_) {
    close_quietly(coordinator_socket_);  // rank 0 is gone (the launcher ends the job), or a forgery
    return;
  }
  last_question_sequence_ = query.sequence;
  SignedAnswer signed_answer{encoded(answer()), {}};
  signed_answer.mac =
      mac_of(*key_, "answer", coordinator_nonce_, {bytes_of(query.sequence), bytes_of(signed_answer.answer)});
  send_fully(coordinator_socket_, &signed_answer, sizeof signed_answer);
}

std::map<int, MemberAnswer> SideChannel::ask_members(const MemberAnswer& own, double wait_s) {
  const int nranks = static_cast<int>(member_sockets_.size());
  std::map<int, MemberAnswer> answers;
  // Rank 0's own answer goes through the same encoding, so every rank's links read alike.
  answers[0] = decoded(encoded(own));
  const std::uint64_t sequence = ++last_question_sequence_;
  for (int member = 1; member < nranks; ++member) {
    int& fd = member_sockets_[static_cast<std::size_t>(member)];
    const Query query{sequence,
                      mac_of(*key_, "query", member_nonces_[static_cast<std::size_t>(member)], {bytes_of(sequence)})};
    if (fd >= 0 && !send_fully(fd, &query, sizeof query)) close_quietly(fd);
  }
  // Wait for all answers together: a rank that never answers must not use up the others' time.
  const auto answer_deadline =
      SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(wait_s));
  std::vector<pollfd> pending;
  for (int member = 1; member < nranks; ++member)
    if (const int fd = member_sockets_[static_cast<std::size_t>(member)]; fd >= 0) pending.push_back({fd, POLLIN, 0});
  while (!pending.empty()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(answer_deadline - SteadyClock::now()).count();
    if (left <= 0 || ::poll(pending.data(), pending.size(), static_cast<int>(left)) <= 0) break;
    for (auto it = pending.begin(); it != pending.end();) {
      if (it->revents == 0) {
        ++it;
        continue;
      }
      const auto member = std::find(member_sockets_.begin(), member_sockets_.end(), it->fd) - member_sockets_.begin();
      SignedAnswer signed_answer;
      // An answer is sent at once; once its first byte is here the rest follows at once.
      if (read_fully(it->fd, &signed_answer, sizeof signed_answer,
                     SteadyClock::now() + std::chrono::milliseconds(100)) &&
          same_mac(signed_answer.mac, mac_of(*key_, "answer", member_nonces_[static_cast<std::size_t>(member)],
                                             {bytes_of(sequence), bytes_of(signed_answer.answer)})))
        answers[static_cast<int>(member)] = decoded(signed_answer.answer);
      it = pending.erase(it);
    }
  }
  return answers;
}

}  // namespace fb
