#pragma once
// The signals that end a run (Ctrl-C, a scheduler's time limit, a closed terminal, a reader of
// standard output that went away, as `run ... | head -1`), and a scope in which the calling
// thread holds them back: they stay pending and are delivered when it ends.

#include <pthread.h>

#include <csignal>

namespace fb {

inline sigset_t termination_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&signals, signal_number);
  return signals;
}

class TerminationSignalsHeld {
 public:
  TerminationSignalsHeld() {
    const sigset_t held = termination_signals();
    pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~TerminationSignalsHeld() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  TerminationSignalsHeld(const TerminationSignalsHeld&) = delete;
  TerminationSignalsHeld& operator=(const TerminationSignalsHeld&) = delete;

 private:
  sigset_t previous_{};
};

}  // namespace fb
