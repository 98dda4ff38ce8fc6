// The PostgreSQL side of the store: libpq, text parameters and results, `?` turned into $1, $2...

#include "store/database.hpp"

#include <libpq-fe.h>

#include <fmt/format.h>

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

class PostgresDatabase final : public Database {
 public:
  explicit PostgresDatabase(const std::string& url) : connection_(PQconnectdb(url.c_str())) {
    if (!connection_ || PQstatus(connection_) != CONNECTION_OK) {
      const std::string message = connection_ ? PQerrorMessage(connection_) : "out of memory";
      PQfinish(connection_);
      throw std::runtime_error(fmt::format("run store {}: cannot connect: {}", redacted(url), trimmed(message)));
    }
    // Notices (an IF NOT EXISTS that found the table) are not the user's business.
    PQsetNoticeProcessor(
        connection_, [](void*, const char*) {}, nullptr);
    name_ = fmt::format("postgresql://{}:{}/{}", PQhost(connection_), PQport(connection_), PQdb(connection_));
  }
  ~PostgresDatabase() override { PQfinish(connection_); }
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  void execute(std::string_view sql) override { check(Result(PQexec(connection_, std::string(sql).c_str()))); }

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
    // One key for the whole store: writers are short (one run each) and take turns.
    execute("SELECT pg_advisory_xact_lock(2027)");
  }
  std::string_view kind() const override { return "postgresql"; }

 private:
  // The password of a URI stays out of messages.
  static std::string redacted(const std::string& url) {
    const std::size_t scheme_end = url.find("://");
    const std::size_t at = url.find('@');
    if (scheme_end == std::string::npos || at == std::string::npos) return url;
    const std::size_t colon = url.find(':', scheme_end + 3);
    if (colon == std::string::npos || colon > at) return url;
    return url.substr(0, colon) + ":***" + url.substr(at);
  }
  static std::string trimmed(std::string message) {
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    return message;
  }

  Result run(const std::string& sql, const Values& parameters) {
    std::vector<const char*> texts;
    texts.reserve(parameters.size());
    for (const Value& value : parameters) texts.push_back(value ? value->c_str() : nullptr);
    Result result(PQexecParams(connection_, sql.c_str(), static_cast<int>(texts.size()), nullptr, texts.data(), nullptr,
                               nullptr, 0));
    check(result);
    return result;
  }

  void check(const Result& result) const {
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
      throw std::runtime_error(fmt::format("run store {}: {}", name_, trimmed(PQerrorMessage(connection_))));
  }

  PGconn* connection_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Database> open_postgresql(const std::string& url) { return std::make_unique<PostgresDatabase>(url); }

}  // namespace fb::store
