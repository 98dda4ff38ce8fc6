#include "store/database.hpp"

#include <filesystem>

namespace fb::store {

std::unique_ptr<Database> open_database(const StoreUrl& url) {
  if (url.is_server()) return open_postgresql(url);
  const std::filesystem::path& path = url.path();
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  return open_sqlite(path.string());
}

std::unique_ptr<Database> open_database(const std::string& url) { return open_database(StoreUrl::parse(url)); }

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
