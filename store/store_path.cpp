#include "store/store_path.hpp"

#include "common/errors.hpp"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>
#include <vector>

namespace fb::store {
namespace {

std::string_view kind_of(mode_t mode) {
  if (S_ISBLK(mode)) return "block device";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISDIR(mode)) return "folder";
  return "special file";
}

// A file: URI for sqlite3_open_v2 (SQLITE_OPEN_URI): the characters a URI gives meaning to escaped.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#')
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else
      uri += c;
  }
  return uri + "?immutable=1";
}

bool starts_like_sqlite(const std::string& path) {
  constexpr std::string_view header("SQLite format 3\0", 16);
  std::array<char, header.size()> bytes{};
  std::ifstream in(path, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return in.gcount() == static_cast<std::streamsize>(bytes.size()) &&
         std::string_view(bytes.data(), bytes.size()) == header;
}

// The tables an existing SQLite file holds, read through a connection that cannot write.
std::vector<std::string> table_names(const std::string& path, const SqliteStoreFile& file) {
  sqlite3* db = nullptr;
  const int read_flags = (file.open_flags & SQLITE_OPEN_URI) | SQLITE_OPEN_READONLY;
  const int status = sqlite3_open_v2(file.name.c_str(), &db, read_flags, nullptr);
  const std::unique_ptr<sqlite3, decltype(&sqlite3_close)> owned(db, &sqlite3_close);
  sqlite3_stmt* statement = nullptr;
  if (status != SQLITE_OK || sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
                                                -1, &statement, nullptr) != SQLITE_OK)
    throw InputError(fmt::format("run store {}: cannot read it as an SQLite database: {}", path,
                                 db ? sqlite3_errmsg(db) : sqlite3_errstr(status)));
  std::vector<std::string> names;
  while (sqlite3_step(statement) == SQLITE_ROW)
    names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
  sqlite3_finalize(statement);
  return names;
}

void require_fabricbench_tables(const std::string& path, const SqliteStoreFile& file) {
  if (!starts_like_sqlite(path))
    throw InputError(
        fmt::format("run store {}: not an SQLite database (no SQLite header): give another --store", path));
  const std::vector<std::string> names = table_names(path, file);
  // No table at all: an empty database, which becomes a store.
  if (names.empty() || std::find(names.begin(), names.end(), "schema_migrations") != names.end()) return;
  std::string listed;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) listed += (i ? ", " : "") + names[i];
  if (names.size() > 3) listed += ", ...";
  throw InputError(fmt::format("run store {}: an SQLite database of another application (tables {}), not a "
                               "fabricbench run store: give another --store",
                               path, listed));
}

}  // namespace

SqliteStoreFile check_sqlite_store_path(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno == ENOENT) return {path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, false};
    throw UsageError(fmt::format("run store {}: {}", path, std::strerror(errno)));
  }
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) {
    std::error_code ignored;
    throw UsageError(fmt::format("run store {}: a symbolic link to {}, which does not exist (a store is not created "
                                 "through a dangling link)",
                                 path, std::filesystem::read_symlink(path, ignored).string()));
  }
  if (!S_ISREG(target.st_mode))
    throw UsageError(fmt::format("run store {}: a {}, not a file: give a file path or postgresql://...", path,
                                 kind_of(target.st_mode)));
  // A file without write permission is one its owner keeps from changes, root included.
  const bool read_only = ::access(path.c_str(), W_OK) != 0 || (target.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0;
  SqliteStoreFile file{path, read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, read_only};
  // Reading a WAL database needs its -shm file: where that cannot be created beside it (a read-only
  // folder), the file is read as it is on disk. No writer can be at work there either.
  const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
  if (read_only && ::access(folder.c_str(), W_OK) != 0 && !std::filesystem::exists(path + "-shm"))
    file = {immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, true};
  if (target.st_size > 0) require_fabricbench_tables(path, file);
  return file;
}

}  // namespace fb::store
