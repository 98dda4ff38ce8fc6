#include "benchmarks/core/side_channel.hpp"

#include "common/errors.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
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
#include <cctype>
#include <charconv>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
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
  // --watchdog-interface names nothing on rank 0's host: every rank ends with the usage error
  // (rank 0 alone throwing would leave the others waiting in the broadcast for ever).
  std::uint8_t interface_missing = 0;
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

struct Subnet {
  std::uint32_t network = 0;  // host byte order
  int prefix_bits = 0;
};

// "a.b.c.d/n" as Open MPI's *_if_include take them; nothing for anything else.
std::optional<Subnet> parse_subnet(std::string_view spec) {
  const auto slash = spec.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string network(spec.substr(0, slash));
  const std::string_view bits = spec.substr(slash + 1);
  in_addr address{};
  int prefix_bits = -1;
  if (::inet_pton(AF_INET, network.c_str(), &address) != 1 ||
      std::from_chars(bits.data(), bits.data() + bits.size(), prefix_bits).ptr != bits.data() + bits.size() ||
      bits.empty() || prefix_bits < 0 || prefix_bits > 32)
    return std::nullopt;
  return Subnet{ntohl(address.s_addr), prefix_bits};
}

// The address of this host on `spec`: an interface name, or a subnet (see parse_subnet).
std::optional<std::uint32_t> address_on(std::string_view spec) {
  const std::optional<Subnet> subnet = parse_subnet(spec);
  const bool is_subnet = spec.find('/') != std::string_view::npos;
  if (is_subnet && !subnet) return std::nullopt;
  for (const InterfaceAddress& entry : interface_addresses()) {
    if (!is_subnet && entry.name == spec) return entry.address;
    if (!is_subnet) continue;
    const std::uint32_t mask = subnet->prefix_bits == 0 ? 0 : ~std::uint32_t{0} << (32 - subnet->prefix_bits);
    if ((ntohl(entry.address) & mask) == (subnet->network & mask)) return entry.address;
  }
  return std::nullopt;
}

// The one address rank 0 listens on, or none for every address (see WatchdogSettings::interface_name).
// An interface the user named must exist: `interface_missing` is set when it has no address here.
std::optional<std::uint32_t> listen_address(const std::string& interface_name,
                                            const std::vector<std::string>& rank_hosts, bool& interface_missing) {
  if (!interface_name.empty()) {
    const auto address = address_on(interface_name);
    interface_missing = !address;
    return address;
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

// Rank 0 greets each connection with a fresh nonce; until the member answers with its Hello it
// is pending.
struct PendingHello {
  int fd = -1;
  Nonce nonce{};
  SteadyClock::time_point deadline{};
  Hello hello{};
  std::size_t received = 0;
};

enum class HelloState : std::uint8_t { waiting, proven, refused };

// Reads what has arrived of a pending connection's Hello; proven once all of it holds.
HelloState read_hello(PendingHello& p, const Key& key, int nranks) {
  const ssize_t n = ::recv(p.fd, reinterpret_cast<char*>(&p.hello) + p.received, sizeof p.hello - p.received, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return HelloState::waiting;
  if (n <= 0) return HelloState::refused;
  p.received += static_cast<std::size_t>(n);
  if (p.received < sizeof p.hello) return HelloState::waiting;
  // A rank out of range, or a MAC that does not hold: refused.
  const int rank = p.hello.rank;
  if (rank <= 0 || rank >= nranks || !same_mac(p.hello.mac, mac_of(key, "hello", p.nonce, {bytes_of(rank)})))
    return HelloState::refused;
  return HelloState::proven;
}

// Takes every connection that waits on the (non-blocking) listener, up to `room` pending in all,
// and sends each its nonce.
void accept_waiting(int listener, std::size_t room, std::vector<PendingHello>& pending) {
  while (pending.size() < room) {
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;  // none left, or no descriptor left until deadlines free some
    PendingHello p{fd, {}, SteadyClock::now() + hello_timeout, {}, 0};
    random_bytes(p.nonce);
    if (::send(fd, p.nonce.data(), p.nonce.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(p.nonce.size()))
      pending.push_back(p);
    else
      ::close(fd);
  }
}

// How many connections may wait for their Hello at once: the descriptors this process may hold,
// less the members' and a reserve for everything else the process opens meanwhile.
std::size_t pending_connection_room(int nranks) {
  constexpr std::size_t reserve = 256;
  rlimit limit{};
  const std::size_t descriptors = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                                      ? static_cast<std::size_t>(limit.rlim_cur)
                                      : std::size_t{1024};
  const std::size_t taken = reserve + static_cast<std::size_t>(nranks);
  return descriptors > taken + 64 ? descriptors - taken : 64;
}

}  // namespace

void validate_interface_spec(const std::string& spec) {
  if (spec.empty()) return;
  if (spec.find('/') != std::string::npos) {
    if (!parse_subnet(spec))
      throw UsageError(fmt::format("--watchdog-interface {} is not a subnet a.b.c.d/n with n from 0 to 32", spec));
    return;
  }
  // Linux interface names: at most IFNAMSIZ - 1 bytes, no '/', no white space.
  if (spec.size() >= IFNAMSIZ || std::any_of(spec.begin(), spec.end(), [](unsigned char c) { return std::isspace(c); }))
    throw UsageError(fmt::format("--watchdog-interface {} is neither an interface name nor a subnet a.b.c.d/n", spec));
}

SideChannel::SideChannel(int rank, const std::vector<std::string>& rank_hosts, const std::string& interface_name,
                         const BroadcastFromRankZero& broadcast)
    : rank_(rank) {
  validate_interface_spec(interface_name);
  const int nranks = static_cast<int>(rank_hosts.size());
  Rendezvous rendezvous;
  int listener = -1;
  if (rank_ == 0) {
    raise_descriptor_limit();
    listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener < 0) throw_system_error("socket");
    bool interface_missing = false;
    const std::optional<std::uint32_t> address = listen_address(interface_name, rank_hosts, interface_missing);
    rendezvous.interface_missing = interface_missing ? 1 : 0;
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
  if (rendezvous.interface_missing != 0) {
    close_quietly(listener);
    throw UsageError(fmt::format("--watchdog-interface {} has no IPv4 address on rank 0's host {}", interface_name,
                                 rank_hosts.at(0)));
  }

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
  // Rank 0 registers ranks for bootstrap_timeout; a rank that could not get through (rank 0 busy
  // with other connections, a listener queue full) tries again for as long.
  const auto give_up_at = SteadyClock::now() + bootstrap_timeout;
  while (coordinator_socket_ < 0 && !addresses.empty()) {
    for (std::size_t i = 0; i < addresses.size() && coordinator_socket_ < 0; ++i) try_joining(addresses[i], port);
    if (coordinator_socket_ >= 0 || SteadyClock::now() + accept_poll_period >= give_up_at) break;
    std::this_thread::sleep_for(accept_poll_period);
  }
  // Without the connection this rank still enforces its own deadline; rank 0 will list it as
  // without a side channel if it is the one that hangs.
  if (coordinator_socket_ < 0)
    fmt::print(stderr,
               "fabricbench: rank {}: watchdog cannot reach rank 0 over TCP; continuing with local "
               "deadlines only\n",
               rank_);
}

void SideChannel::try_joining(std::uint32_t address, std::uint16_t port) {
  int fd = connect_with_timeout(address, port);
  Nonce nonce{};
  Mac welcome{};
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  if (fd >= 0 && read_fully(fd, nonce.data(), nonce.size(), deadline)) {
    const Hello hello{rank_, mac_of(*key_, "hello", nonce, {bytes_of(rank_)})};
    if (send_fully(fd, &hello, sizeof hello) && read_fully(fd, welcome.data(), welcome.size(), deadline) &&
        same_mac(welcome, mac_of(*key_, "welcome", nonce, {bytes_of(rank_)}))) {
      coordinator_socket_ = fd;
      coordinator_nonce_ = nonce;
      return;
    }
  }
  close_quietly(fd);
}

void SideChannel::accept_members(int listener, int nranks) {
  // Every connection that waits on the listener is taken at each turn and greeted, and all of
  // them prove their rank concurrently, each by its own deadline: however many other connections
  // arrive, a rank's is accepted in the order it came and answered in one round trip, and no
  // connection is closed to make room for another. Idle ones cost a descriptor until their
  // deadline; beyond the descriptors this process may hold, connections wait in the kernel's
  // queue until deadlines free some.
  const std::size_t room = pending_connection_room(nranks);
  std::vector<PendingHello> pending;
  std::vector<pollfd> pfds;
  const auto deadline = SteadyClock::now() + bootstrap_timeout;
  for (int registered = 1; registered < nranks && SteadyClock::now() < deadline;) {
    pfds.assign(1, {listener, static_cast<short>(pending.size() < room ? POLLIN : 0), 0});
    for (const PendingHello& p : pending) pfds.push_back({p.fd, POLLIN, 0});
    if (::poll(pfds.data(), pfds.size(), static_cast<int>(accept_poll_period.count())) < 0 && errno != EINTR)
      throw_system_error("poll");
    const auto now = SteadyClock::now();
    std::vector<PendingHello> still_pending;
    still_pending.reserve(pending.size());
    for (std::size_t i = 0; i < pending.size(); ++i) {
      PendingHello& p = pending[i];
      const HelloState state = pfds[i + 1].revents == 0 ? HelloState::waiting : read_hello(p, *key_, nranks);
      if (state == HelloState::proven && register_member(p.fd, p.hello.rank, p.nonce)) {
        ++registered;
        continue;
      }
      if (state == HelloState::waiting && p.deadline >= now) {
        still_pending.push_back(p);
        continue;
      }
      close_quietly(p.fd);  // refused, a rank registered already, or out of time
    }
    pending.swap(still_pending);
    if ((pfds[0].revents & POLLIN) != 0) accept_waiting(listener, room, pending);
  }
  for (PendingHello& p : pending) close_quietly(p.fd);
}

bool SideChannel::register_member(int& fd, int rank, const Nonce& nonce) {
  int& socket = member_sockets_[static_cast<std::size_t>(rank)];
  if (socket >= 0) return false;  // registered already: a replay, or a second connection
  const Mac welcome = mac_of(*key_, "welcome", nonce, {bytes_of(rank)});
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (!send_fully(fd, welcome.data(), welcome.size())) return false;
  const int no_delay = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay);
  socket = std::exchange(fd, -1);
  member_nonces_[static_cast<std::size_t>(rank)] = nonce;
  return true;
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
