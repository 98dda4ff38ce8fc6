#include "store/store_url.hpp"

#include "common/errors.hpp"
#include "common/host_environment.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <optional>

namespace fb::store {
namespace {

std::string lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// "postgresql" or "postgres" (any case) when `text` starts with one; how long it is, else 0.
std::size_t postgres_prefix(std::string_view text) {
  const std::string lower = lowercase(text.substr(0, 10));
  if (lower.starts_with("postgresql")) return 10;
  if (lower.starts_with("postgres")) return 8;
  return 0;
}

// A URL scheme: a letter, then letters, digits, '+', '-' or '.' (RFC 3986).
bool is_scheme(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text.front()))) return false;
  return std::ranges::all_of(text, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

// `text` with what may be a password hidden: between the scheme and the last '@' before the query,
// and every `password=` value. For input that is not a URL we can parse, so what we print of it
// cannot hold the secret whatever its shape.
std::string masked(std::string_view text) {
  std::string out(text.substr(0, text.find('?')));
  const std::size_t at = out.rfind('@');
  if (at != std::string::npos) {
    const std::size_t slashes = out.find("//");
    const std::size_t colon = out.find(':');
    const std::size_t head = slashes != std::string::npos && slashes < at ? slashes + 2
                             : colon != std::string::npos && colon < at   ? colon + 1
                                                                          : 0;
    out = out.substr(0, head) + "***" + out.substr(at);
  }
  if (const std::size_t query = text.find('?'); query != std::string_view::npos)
    out += lowercase(text.substr(query)).find("password") == std::string::npos ? std::string(text.substr(query))
                                                                               : std::string("?***");
  return out;
}

[[noreturn]] void malformed(std::string_view text, std::string_view why) {
  throw UsageError(fmt::format("--store {}: {} (a run store is postgresql://USER@HOST:PORT/DB or the path of an "
                               "SQLite file)",
                               masked(text), why));
}

std::string percent_decoded(std::string_view text, std::string_view whole, std::string_view what) {
  std::string decoded;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      decoded += text[i];
      continue;
    }
    const auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    if (i + 2 >= text.size() || hex(text[i + 1]) < 0 || hex(text[i + 2]) < 0)
      malformed(whole, fmt::format("the {} has a '%' that is not followed by two hex digits", what));
    decoded += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
    i += 2;
  }
  return decoded;
}

bool is_libpq_keyword(const std::string& keyword) {
  const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(PQconndefaults(), &PQconninfoFree);
  for (const PQconninfoOption* option = options.get(); option && option->keyword; ++option)
    if (keyword == option->keyword) return true;
  return false;
}

struct HostList {
  std::string hosts;  // libpq's comma-separated host and port lists
  std::string ports;
  bool any_port = false;
};

// "host[:port][,host[:port]...]", a host "[v6 address]" or percent-encoded (a socket directory).
HostList parse_hosts(std::string_view spec, std::string_view whole) {
  HostList list;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(spec.find(',', start), spec.size());
    const std::string_view item = spec.substr(start, end - start);
    std::string_view host = item;
    std::string_view port;
    if (item.starts_with('[')) {
      const std::size_t close = item.find(']');
      if (close == std::string_view::npos) malformed(whole, "an IPv6 host has no closing ']'");
      host = item.substr(1, close - 1);
      const std::string_view after = item.substr(close + 1);
      if (!after.empty() && !after.starts_with(':')) malformed(whole, "text after an IPv6 host's ']'");
      if (!after.empty()) port = after.substr(1);
    } else if (const std::size_t colon = item.rfind(':'); colon != std::string_view::npos) {
      host = item.substr(0, colon);
      port = item.substr(colon + 1);
    }
    if (!port.empty()) {
      const bool digits = std::ranges::all_of(port, [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || port.size() > 5 || std::stoi(std::string(port)) == 0 || std::stoi(std::string(port)) > 65535)
        malformed(whole, fmt::format("port '{}' is not a number from 1 to 65535", port));
      list.any_port = true;
    }
    if (start > 0) {
      list.hosts += ',';
      list.ports += ',';
    }
    list.hosts += percent_decoded(host, whole, "host");
    list.ports += port;
    if (end == spec.size()) break;
    start = end + 1;
  }
  return list;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one pass over a libpq URI: scheme, user, password, hosts, ports, database and parameters, each refused with its reason
StoreUrl StoreUrl::parse(std::string_view text) {
  StoreUrl url;
  if (text.empty()) throw UsageError("--store: empty (a run store is postgresql://USER@HOST:PORT/DB or a file path)");
  const std::size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos || !is_scheme(text.substr(0, scheme_end))) {
    // A URL gone wrong is not a file name: `postgresql//u@h/db` would otherwise create a directory
    // "postgresql" and an SQLite file in it, and the run would say "recorded".
    const std::size_t prefix = postgres_prefix(text);
    if (prefix > 0 && (text.substr(prefix).starts_with(':') || text.substr(prefix).starts_with("//")))
      malformed(text, "not a PostgreSQL URL: it starts postgresql:// (two slashes after the colon)");
    const std::size_t colon = text.find(':');
    if (colon != std::string_view::npos && is_scheme(text.substr(0, colon)) && text.substr(colon + 1).starts_with('/'))
      malformed(text, "looks like a URL but is not one fabricbench reads");
    url.path_ = std::filesystem::path(text);
    url.printable_ = std::string(text);
    return url;
  }
  const std::string scheme = lowercase(text.substr(0, scheme_end));
  if (scheme != "postgresql" && scheme != "postgres")
    malformed(text, fmt::format("fabricbench does not speak '{}://'", scheme));
  url.kind_ = Kind::postgresql;
  const std::string_view rest = text.substr(scheme_end + 3);
  const std::size_t query_at = std::min(rest.find('?'), rest.size());
  const std::string_view main = rest.substr(0, query_at);
  // The user part ends at the last '@' before the query: a password with an unencoded '@' or '/'
  // is still the password, never printed as a host or a database name.
  const std::size_t at = main.rfind('@');
  std::string printable = "postgresql://";
  std::string user;
  if (at != std::string_view::npos) {
    const std::string_view userinfo = main.substr(0, at);
    const std::size_t colon = userinfo.find(':');
    user = percent_decoded(userinfo.substr(0, colon), text, "user name");
    printable += std::string(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) {
      url.password_ = percent_decoded(userinfo.substr(colon + 1), text, "password");
      printable += ":***";
    }
    printable += '@';
  }
  const std::string_view host_and_db = at == std::string_view::npos ? main : main.substr(at + 1);
  const std::size_t slash = std::min(host_and_db.find('/'), host_and_db.size());
  const HostList hosts = parse_hosts(host_and_db.substr(0, slash), text);
  printable += std::string(host_and_db);
  if (!user.empty()) url.parameters_.emplace_back("user", user);
  if (!hosts.hosts.empty() && hosts.hosts.find_first_not_of(',') != std::string::npos)
    url.parameters_.emplace_back("host", hosts.hosts);
  if (hosts.any_port) url.parameters_.emplace_back("port", hosts.ports);
  if (slash < host_and_db.size()) {
    const std::string dbname = percent_decoded(host_and_db.substr(slash + 1), text, "database name");
    if (!dbname.empty()) url.parameters_.emplace_back("dbname", dbname);
  }
  if (query_at < rest.size()) {
    const std::string_view query = rest.substr(query_at + 1);
    std::string shown;
    for (std::size_t start = 0; start <= query.size();) {
      const std::size_t end = std::min(query.find('&', start), query.size());
      const std::string_view item = query.substr(start, end - start);
      start = end + 1;
      if (item.empty()) continue;
      const std::size_t equals = item.find('=');
      if (equals == std::string_view::npos)
        malformed(text, fmt::format("parameter '{}' has no value (key=value)", item));
      const std::string key = percent_decoded(item.substr(0, equals), text, "parameter name");
      const std::string value = percent_decoded(item.substr(equals + 1), text, "parameter value");
      if (!is_libpq_keyword(key))
        malformed(text, fmt::format("'{}' is not a PostgreSQL connection parameter", item.substr(0, equals)));
      shown += shown.empty() ? "?" : "&";
      if (key == "password") {
        url.password_ = value;
        shown += std::string(item.substr(0, equals)) + "=***";
      } else {
        url.parameters_.emplace_back(key, value);
        shown += std::string(item);
      }
    }
    printable += shown;
  }
  url.printable_ = std::move(printable);
  return url;
}

std::vector<std::pair<std::string, std::string>> StoreUrl::connection_parameters(
    const PostgresDefaults& defaults) const {
  std::vector<std::pair<std::string, std::string>> parameters{{"fallback_application_name", "fabricbench"}};
  const auto given = [&](std::string_view key) {
    return std::ranges::any_of(parameters_, [&](const auto& p) { return p.first == key; });
  };
  if (!given("connect_timeout") && !std::getenv("PGCONNECT_TIMEOUT"))
    parameters.emplace_back("connect_timeout", std::to_string(defaults.connect_timeout_s));
  // Server settings for this session; the URL's `options` and PGOPTIONS come after them and win.
  std::string options =
      fmt::format("-c statement_timeout={}s -c lock_timeout={}s -c "
                  "idle_in_transaction_session_timeout={}s",
                  defaults.statement_timeout_s, defaults.lock_timeout_s, defaults.idle_in_transaction_timeout_s);
  if (const char* environment = std::getenv("PGOPTIONS")) options += fmt::format(" {}", environment);
  for (const auto& [key, value] : parameters_) {
    if (key == "options")
      options += " " + value;
    else
      parameters.emplace_back(key, value);
  }
  parameters.emplace_back("options", options);
  if (!password_.empty()) parameters.emplace_back("password", password_);
  return parameters;
}

std::string StoreUrl::scrubbed(std::string text) const {
  if (password_.size() < 3) return text;
  for (std::size_t at = text.find(password_); at != std::string::npos; at = text.find(password_, at + 3))
    text.replace(at, password_.size(), "***");
  return text;
}

std::string redact_store_urls(std::string_view text) {
  std::string out;
  bool quoted = false;  // inside '...' of a shell-quoted command line
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t prefix = postgres_prefix(text.substr(i));
    const bool starts_word = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    if (prefix == 0 || !starts_word || !text.substr(i + prefix).starts_with("://")) {
      if (text[i] == '\'') quoted = !quoted;
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() &&
           (quoted ? text[end] != '\'' : !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != '"'))
      ++end;
    const std::string_view url = text.substr(i, end - i);
    try {
      out += StoreUrl::parse(url).printable();
    } catch (const UsageError&) { out += "postgresql://***"; }
    i = end;
  }
  return out;
}

std::string redacted_command_line(int argc, char** argv) {
  std::vector<std::string> arguments;
  for (int i = 0; i < argc; ++i) {
    const std::string_view argument = argv[i];
    // A whole argument is one URL, however many spaces its password holds.
    std::optional<std::size_t> url_at;
    if (postgres_prefix(argument) > 0 && argument.find("://") != std::string_view::npos) url_at = 0;
    if (argument.starts_with("--store=")) url_at = 8;
    if (!url_at) {
      arguments.push_back(redact_store_urls(argument));
      continue;
    }
    std::string redacted(argument.substr(0, *url_at));
    try {
      redacted += StoreUrl::parse(argument.substr(*url_at)).printable();
    } catch (const UsageError&) { redacted += "postgresql://***"; }
    arguments.push_back(std::move(redacted));
  }
  std::vector<char*> pointers;
  for (std::string& argument : arguments) pointers.push_back(argument.data());
  return shell_command_line(static_cast<int>(pointers.size()), pointers.data());
}

}  // namespace fb::store
