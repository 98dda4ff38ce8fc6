// The PostgreSQL side of the store: libpq, text parameters and results, `?` turned into $1, $2...
// Connected from the parsed URL's keyword/value pairs (never the URL's text), with timeouts by
// default (store/store_url.hpp); a connection found dropped between transactions (a restarted
// server) is made again once before the statement is given up.

#include "common/errors.hpp"
#include "store/database.hpp"

#include <libpq-fe.h>

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace fb::store {
namespace {

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// The statements of the store hold no `?` inside string literals, so every one is a placeholder.
std::string numbered_placeholders(std::string_view sql) {
  std::string numbered;
  int next = 1;
  for (const char c : sql) {
    if (c == '?')
      numbered += fmt::format("${}", next++);
    else
      numbered += c;
  }
  return numbered;
}

std::string trimmed(std::string message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  for (char& c : message)
    if (c == '\n' || c == '\t') c = ' ';  // libpq's messages run over lines; ours are one
  return message;
}

// SQLSTATEs of a statement ended by a timeout: lock_timeout (55P03), statement_timeout (57014).
bool timed_out(const PGresult* result) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  return state && (std::strcmp(state, "55P03") == 0 || std::strcmp(state, "57014") == 0);
}

class PostgresDatabase final : public Database {
 public:
  explicit PostgresDatabase(const StoreUrl& url) : url_(url) {
    const std::vector<std::pair<std::string, std::string>> parameters = url.connection_parameters();
    std::vector<const char*> keywords;
    std::vector<const char*> values;
    for (const auto& [keyword, value] : parameters) {
      keywords.push_back(keyword.c_str());
      values.push_back(value.c_str());
      if (keyword == "connect_timeout") connect_timeout_ = value;
    }
    if (connect_timeout_.empty()) {
      const char* environment = std::getenv("PGCONNECT_TIMEOUT");
      connect_timeout_ = environment ? environment : "no limit";
    }
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    connection_ = PQconnectdbParams(keywords.data(), values.data(), 0);
    if (!connection_ || PQstatus(connection_) != CONNECTION_OK) {
      const std::string message = connection_ ? trimmed(PQerrorMessage(connection_)) : "out of memory";
      PQfinish(connection_);
      connection_ = nullptr;
      // libpq's word for connect_timeout running out: a server that took the connection and never
      // answered, or a host that never answered at all.
      if (message.find("timeout expired") != std::string::npos)
        throw TimeoutError(url_.scrubbed(fmt::format(
            "run store {}: no answer from the server within connect_timeout ({} s; ?connect_timeout=S in the URL "
            "sets it): {}",
            url_, connect_timeout_, message)));
      throw std::runtime_error(url_.scrubbed(fmt::format("run store {}: cannot connect: {}", url_, message)));
    }
    quiet();
  }
  ~PostgresDatabase() override { PQfinish(connection_); }
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  void execute(std::string_view sql) override {
    const std::string text(sql);
    check(attempt([&] { return Result(PQexec(connection_, text.c_str())); }));
  }

  std::vector<Values> query(std::string_view sql, const Values& parameters) override {
    const Result result = run(numbered_placeholders(sql), parameters);
    std::vector<Values> rows;
    const int columns = PQnfields(result.get());
    for (int r = 0; r < PQntuples(result.get()); ++r) {
      Values row;
      row.reserve(static_cast<std::size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(result.get(), r, c))
          row.emplace_back();
        else
          row.emplace_back(
              std::string(PQgetvalue(result.get(), r, c), static_cast<std::size_t>(PQgetlength(result.get(), r, c))));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  void execute_many(std::string_view sql, const std::vector<Values>& parameter_lists) override {
    const std::string numbered = numbered_placeholders(sql);
    for (const Values& parameters : parameter_lists) run(numbered, parameters);
  }

  void begin_exclusive() override {
    execute("BEGIN");
    // One key for the whole store: writers (and the schema's creation) are short and take turns.
    // A writer that waits longer than lock_timeout gives up with the message check() writes.
    execute("SELECT pg_advisory_xact_lock(2027)");
  }
  bool has_table(std::string_view name) override {
    return !query("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = ?",
                  {std::string(name)})
                .empty();
  }
  std::string_view kind() const override { return "postgresql"; }

 private:
  // Notices (an IF NOT EXISTS that found the table) are not the user's business.
  void quiet() {
    PQsetNoticeProcessor(
        connection_, [](void*, const char*) {}, nullptr);
  }

  // Runs `statement`; when it failed because the connection is gone and no transaction was open
  // (nothing of ours is lost with it), connects again once and runs it again. Inside a transaction
  // the statements before it are gone with the connection: that error is the caller's.
  template <class Statement>
  Result attempt(const Statement& statement) {
    const bool between_transactions = PQtransactionStatus(connection_) == PQTRANS_IDLE;
    Result result = statement();
    if (succeeded(result) || PQstatus(connection_) != CONNECTION_BAD) return result;
    if (!between_transactions)
      throw std::runtime_error(url_.scrubbed(
          fmt::format("run store {}: the connection to the server was lost inside a transaction (nothing of it was "
                      "written): {}",
                      url_, trimmed(PQerrorMessage(connection_)))));
    const std::string lost = trimmed(PQerrorMessage(connection_));
    PQreset(connection_);
    if (PQstatus(connection_) != CONNECTION_OK)
      throw std::runtime_error(url_.scrubbed(fmt::format("run store {}: the connection was lost ({}) and connecting "
                                                         "again failed: {}",
                                                         url_, lost, trimmed(PQerrorMessage(connection_)))));
    quiet();
    return statement();
  }

  Result run(const std::string& sql, const Values& parameters) {
    std::vector<const char*> texts;
    texts.reserve(parameters.size());
    for (const Value& value : parameters) texts.push_back(value ? value->c_str() : nullptr);
    Result result = attempt([&] {
      return Result(PQexecParams(connection_, sql.c_str(), static_cast<int>(texts.size()), nullptr, texts.data(),
                                 nullptr, nullptr, 0));
    });
    check(result);
    return result;
  }

  static bool succeeded(const Result& result) {
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
  }

  void check(const Result& result) const {
    if (succeeded(result)) return;
    const std::string message =
        url_.scrubbed(fmt::format("run store {}: {}", url_, trimmed(PQerrorMessage(connection_))));
    if (timed_out(result.get()))
      throw TimeoutError(message +
                         " (another writer held the store's write lock, or the statement ran, longer than the "
                         "session's lock_timeout / statement_timeout: docs/fleet-health.md)");
    throw std::runtime_error(message);
  }

  StoreUrl url_;
  std::string connect_timeout_;
  PGconn* connection_ = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_postgresql(const StoreUrl& url) { return std::make_unique<PostgresDatabase>(url); }

}  // namespace fb::store
