#pragma once
// The store's schema and its migrations: numbered steps applied in order, each once, recorded in
// schema_migrations. A new column is a new step (ALTER TABLE ... ADD COLUMN), never an edit of
// an old one, so a store written by an older fabricbench is upgraded in place when it is opened.

#include "store/database.hpp"

#include <string>

namespace fb::store {

// The newest schema version this build knows.
int newest_schema_version();

// Applies every step the store lacks, in one exclusive transaction. Throws std::runtime_error when
// the store was written by a newer fabricbench (a version this build does not know).
void migrate(Database& database);

// The version the store is at (0: empty).
int schema_version(Database& database);

// "2026-11-26T19:00:00Z": when a migration was applied or a run ingested.
std::string utc_now();

}  // namespace fb::store
