#include "store/database.hpp"

#include <filesystem>

namespace fb::store {

std::unique_ptr<Database> open_database(const std::string& url) {
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) return open_postgresql(url);
  const std::filesystem::path path(url);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  return open_sqlite(url);
}

Transaction::~Transaction() {
  if (!open_) return;
  try {
    database_.execute("ROLLBACK");
  } catch (...) {
    // The connection is gone or the transaction already ended with the error that brought us here:
    // that error is what the caller reports.
  }
}

void Transaction::commit() {
  database_.execute("COMMIT");
  open_ = false;
}

}  // namespace fb::store
