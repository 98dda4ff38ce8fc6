#pragma once
// The two databases a run store lives in, behind one small interface: SQLite (a file, through the
// SQLite C API) and PostgreSQL (a server, through libpq). Statements are written once with `?`
// placeholders; values travel as text both ways (NULL as an empty optional), so one schema and
// one set of statements serve both, and numbers round-trip exactly (shortest round-trip decimal).

#include "store/store_url.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb::store {

using Value = std::optional<std::string>;
using Values = std::vector<Value>;

class Database {
 public:
  virtual ~Database() = default;
  // Runs statements without parameters and without results (schema changes, BEGIN, COMMIT).
  virtual void execute(std::string_view sql) = 0;
  // Runs one statement with `?` placeholders bound in order and returns its rows, each column as
  // text or NULL.
  virtual std::vector<Values> query(std::string_view sql, const Values& parameters = {}) = 0;
  // Runs one statement once per parameter list (a prepared statement reused: bulk inserts).
  virtual void execute_many(std::string_view sql, const std::vector<Values>& parameter_lists) = 0;
  // Opens a transaction that excludes every other writer until it ends: SQLite's BEGIN IMMEDIATE,
  // PostgreSQL's BEGIN with a transaction-level advisory lock, so two processes migrating or
  // ingesting the same run at once take turns.
  virtual void begin_exclusive() = 0;
  // Whether the table exists, read without writing anything (no lock, no DDL).
  virtual bool has_table(std::string_view name) = 0;
  // "sqlite" or "postgresql", for messages.
  virtual std::string_view kind() const = 0;
};

// `url`: a PostgreSQL server or the path of an SQLite file, created with its directory when
// missing. Throws std::runtime_error naming the store (its printable form) and the library's
// message when it cannot be opened; TimeoutError when a server does not answer within the
// connection's connect_timeout.
std::unique_ptr<Database> open_database(const StoreUrl& url);
// The same for what the user typed: UsageError when it is a URL fabricbench does not read.
std::unique_ptr<Database> open_database(const std::string& url);

std::unique_ptr<Database> open_sqlite(const std::string& path);
std::unique_ptr<Database> open_postgresql(const StoreUrl& url);

// Commits on commit(), rolls back when left otherwise (an exception), so a failed ingest leaves
// the store as it was.
class Transaction {
 public:
  explicit Transaction(Database& database) : database_(database) { database_.begin_exclusive(); }
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& database_;
  bool open_ = true;
};

}  // namespace fb::store
