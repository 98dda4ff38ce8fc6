// The SQLite side of the store: one file, the SQLite C API, prepared statements cached by text.

#include "store/database.hpp"
#include "store/store_path.hpp"

#include <sqlite3.h>

#include <fmt/format.h>

#include <map>
#include <stdexcept>

namespace fb::store {
namespace {

class SqliteDatabase final : public Database {
 public:
  explicit SqliteDatabase(const std::string& path) : path_(path) {
    const SqliteStoreFile file = check_sqlite_store_path(path);
    const int status = sqlite3_open_v2(file.name.c_str(), &db_, file.open_flags, nullptr);
    if (status != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(status);
      sqlite3_close(db_);
      throw std::runtime_error(fmt::format("run store {}: cannot open: {}", path, message));
    }
    // Another process ingesting at the same time holds the write lock for one run's transaction:
    // wait for it rather than fail. WAL lets `history` read while a run records.
    sqlite3_busy_timeout(db_, 30'000);
    // WAL with synchronous=NORMAL: a commit is not fsynced, only checkpoints are; a killed process
    // loses nothing committed, a power cut at most the last runs recorded, which their results
    // files still hold (history ingest records them again). Full sync would cost a flush per run.
    execute(file.read_only ? "PRAGMA foreign_keys=ON"
                           : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON");
  }
  ~SqliteDatabase() override {
    for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
    sqlite3_close(db_);
  }
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  void execute(std::string_view sql) override {
    char* error = nullptr;
    if (sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error ? error : sqlite3_errmsg(db_);
      sqlite3_free(error);
      throw std::runtime_error(fmt::format("run store {}: {}", path_, message));
    }
  }

  std::vector<Values> query(std::string_view sql, const Values& parameters) override {
    sqlite3_stmt* statement = prepared(sql);
    bind(statement, parameters);
    std::vector<Values> rows;
    const int columns = sqlite3_column_count(statement);
    int status = SQLITE_ROW;
    while ((status = sqlite3_step(statement)) == SQLITE_ROW) {
      Values row;
      row.reserve(static_cast<std::size_t>(columns));
      for (int c = 0; c < columns; ++c) { row.push_back(column_text(statement, c)); }
      rows.push_back(std::move(row));
    }
    finish(statement, status);
    return rows;
  }

  void execute_many(std::string_view sql, const std::vector<Values>& parameter_lists) override {
    sqlite3_stmt* statement = prepared(sql);
    for (const Values& parameters : parameter_lists) {
      bind(statement, parameters);
      finish(statement, sqlite3_step(statement));
    }
  }

  void begin_exclusive() override { execute("BEGIN IMMEDIATE"); }
  bool has_table(std::string_view name) override {
    return !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {std::string(name)}).empty();
  }
  std::string_view kind() const override { return "sqlite"; }

 private:
  sqlite3_stmt* prepared(std::string_view sql) {
    const std::string key(sql);
    if (const auto found = statements_.find(key); found != statements_.end()) return found->second;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, key.c_str(), static_cast<int>(key.size()), &statement, nullptr) != SQLITE_OK)
      throw std::runtime_error(fmt::format("run store {}: {}", path_, sqlite3_errmsg(db_)));
    statements_.emplace(key, statement);
    return statement;
  }

  static Value column_text(sqlite3_stmt* statement, int column) {
    switch (sqlite3_column_type(statement, column)) {
      case SQLITE_NULL: return std::nullopt;
      case SQLITE_INTEGER: return std::to_string(sqlite3_column_int64(statement, column));
      // SQLite's own text of a REAL keeps 15 digits, not always enough to read back the same
      // double: the shortest text that does.
      case SQLITE_FLOAT: return fmt::format("{}", sqlite3_column_double(statement, column));
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
        return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
      }
    }
  }

  void bind(sqlite3_stmt* statement, const Values& parameters) {
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const int index = static_cast<int>(i + 1);
      // Text into a column declared INTEGER or DOUBLE PRECISION is stored as that number (type
      // affinity), so comparisons and ORDER BY are numeric. SQLITE_STATIC: SQLite reads the caller's
      // text, which outlives every step of this binding (the next bind resets the statement first),
      // instead of copying each value (a 10,000-run ingest binds 17 million).
      const int status = parameters[i] ? sqlite3_bind_text(statement, index, parameters[i]->data(),
                                                           static_cast<int>(parameters[i]->size()), SQLITE_STATIC)
                                       : sqlite3_bind_null(statement, index);
      if (status != SQLITE_OK) throw std::runtime_error(fmt::format("run store {}: {}", path_, sqlite3_errmsg(db_)));
    }
  }

  void finish(sqlite3_stmt* statement, int status) {
    if (status == SQLITE_DONE || status == SQLITE_ROW) return;
    const std::string message = sqlite3_errmsg(db_);
    sqlite3_reset(statement);
    throw std::runtime_error(fmt::format("run store {}: {}", path_, message));
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path) { return std::make_unique<SqliteDatabase>(path); }

}  // namespace fb::store
