#pragma once
// Where a run store lives, parsed once from what the user typed (--store): a path (SQLite) or a
// PostgreSQL URL. The URL's password is a secret: it is kept for connecting alone, and the only
// text this type gives out is its printable form, with the password (in the user part and in a
// `password=` parameter) replaced by ***. Every message, console line, file and table that names a
// store names it through printable(); command lines go through redacted_command_line().
//
// Accepted: `postgresql://` or `postgres://` in any case, then libpq's URI grammar
// ([user[:password]@][host][:port][,host[:port]...][/dbname][?key=value&...], percent-encoded);
// anything else that looks like a URL (`mysql://...`, `postgresql//...`, `postgres:/...`) is a
// usage error naming the problem; everything else is the path of an SQLite file.
// Without a password in the URL, libpq takes it from PGPASSWORD, ~/.pgpass or `passfile=`.

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace fb::store {

// Defaults a PostgreSQL connection gets unless its URL says otherwise (docs/fleet-health.md):
// connecting gives up after connect_timeout, a statement after statement_timeout, a writer waiting
// for another one's write lock after lock_timeout, and the server ends a session left idle inside a
// transaction (a writer paused or killed half-way) after idle_in_transaction_session_timeout, which
// frees the lock for the others.
struct PostgresDefaults {
  int connect_timeout_s = 10;
  int statement_timeout_s = 120;
  int lock_timeout_s = 120;
  int idle_in_transaction_timeout_s = 120;
};

class StoreUrl {
 public:
  enum class Kind { sqlite, postgresql };

  // Throws UsageError naming what is wrong; the message holds the printable form only.
  static StoreUrl parse(std::string_view text);

  Kind kind() const { return kind_; }
  bool is_server() const { return kind_ == Kind::postgresql; }
  // The SQLite file (Kind::sqlite).
  const std::filesystem::path& path() const { return path_; }
  // The URL with its password replaced by ***, or the path: the one form that is printed.
  const std::string& printable() const { return printable_; }

  // libpq keyword/value pairs (PQconnectdbParams), the password among them, with the defaults
  // added: for connecting, nothing else.
  std::vector<std::pair<std::string, std::string>> connection_parameters(const PostgresDefaults& defaults = {}) const;
  // `text` with every occurrence of this URL's password replaced by *** (a library message that
  // might echo it). Passwords under 3 characters are not searched for: they would mangle words.
  std::string scrubbed(std::string text) const;

 private:
  Kind kind_ = Kind::sqlite;
  std::filesystem::path path_;
  std::string printable_;
  std::vector<std::pair<std::string, std::string>> parameters_;  // as given, decoded
  std::string password_;
};

// Every PostgreSQL URL inside `text` (a command line, a provenance field) in its printable form; a
// URL that does not parse is replaced by `postgresql://***` whole.
std::string redact_store_urls(std::string_view text);

// The process's command line as `shell_command_line` writes it, each argument that is a store URL
// (alone or as --store=URL) in its printable form: what results files and the store record.
std::string redacted_command_line(int argc, char** argv);

}  // namespace fb::store

template <>
struct fmt::formatter<fb::store::StoreUrl> : fmt::formatter<std::string_view> {
  template <class Context>
  auto format(const fb::store::StoreUrl& url, Context& context) const {
    return fmt::formatter<std::string_view>::format(url.printable(), context);
  }
};
