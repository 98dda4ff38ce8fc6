#pragma once
// What an SQLite run store's path must be before SQLite is let near it. SQLite opens whatever it is
// given and writes its header there: a block device named by --store would lose its first pages, a
// dangling link would have its target created, another application's database would gain
// fabricbench's tables and be switched to WAL. So the path is checked first, and a store the user
// cannot (or chose not to) write is opened read-only, so it can still be listed.

#include <string>

namespace fb::store {

struct SqliteStoreFile {
  std::string name;  // what to hand sqlite3_open_v2: the path, or a file: URI when opened immutable
  int open_flags = 0;
  bool read_only = false;  // no writes: no WAL switch, no migration
};

// Throws UsageError for a path that is not a regular file or a new one (a device, a FIFO, a
// socket, a folder, a dangling link), InputError for a file that is not an SQLite database or one
// without fabricbench's schema_migrations table.
SqliteStoreFile check_sqlite_store_path(const std::string& path);

}  // namespace fb::store
