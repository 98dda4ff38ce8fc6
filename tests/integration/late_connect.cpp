// LD_PRELOAD into one rank of a test job: every TCP (IPv4 stream) connect of that process starts
// FB_TEST_CONNECT_DELAY_MS milliseconds late, so the rank joins rank 0's watchdog side channel
// late, while the test floods rank 0 with other connections (side_channel_flood_test.cpp).

#include <dlfcn.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <thread>

extern "C" int connect(int fd, const sockaddr* address, socklen_t length) {
  using Connect = int (*)(int, const sockaddr*, socklen_t);
  static const auto next = reinterpret_cast<Connect>(::dlsym(RTLD_NEXT, "connect"));
  int type = 0;
  socklen_t type_length = sizeof type;
  if (address != nullptr && address->sa_family == AF_INET &&
      ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_length) == 0 && type == SOCK_STREAM)
    if (const char* delay_ms = std::getenv("FB_TEST_CONNECT_DELAY_MS"))
      std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(delay_ms)));
  return next(fd, address, length);
}
