// What --store accepts and what of it is ever printed: the password of a PostgreSQL URL reaches
// libpq's parameters and nothing else; URLs fabricbench does not read are usage errors.

#include "common/errors.hpp"
#include "store/store_url.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace fb::store {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::map<std::string, std::string> parameters_of(const StoreUrl& url) {
  std::map<std::string, std::string> found;
  for (const auto& [key, value] : url.connection_parameters()) found[key] = value;
  return found;
}

TEST(StoreUrl, APasswordIsKeptForConnectingAndPrintedAsStars) {
  const StoreUrl url = StoreUrl::parse("postgresql://fleet:s3cr%40t@db.example:5433/history?sslmode=require");
  EXPECT_TRUE(url.is_server());
  EXPECT_EQ(url.printable(), "postgresql://fleet:***@db.example:5433/history?sslmode=require");
  EXPECT_EQ(fmt::format("{}", url), url.printable());
  const auto parameters = parameters_of(url);
  EXPECT_EQ(parameters.at("password"), "s3cr@t");  // percent-decoded
  EXPECT_EQ(parameters.at("user"), "fleet");
  EXPECT_EQ(parameters.at("host"), "db.example");
  EXPECT_EQ(parameters.at("port"), "5433");
  EXPECT_EQ(parameters.at("dbname"), "history");
  EXPECT_EQ(parameters.at("sslmode"), "require");
  // The defaults: a connection and a statement that never end are bounded.
  EXPECT_EQ(parameters.at("connect_timeout"), "10");
  EXPECT_THAT(parameters.at("options"), HasSubstr("-c lock_timeout=120s"));
  EXPECT_EQ(url.scrubbed("FATAL: password s3cr@t is wrong"), "FATAL: password *** is wrong");
}

TEST(StoreUrl, EverySpellingOfThePasswordIsHidden) {
  // Any case of either scheme; the password in the query; a password with '/' and '@' unencoded.
  const StoreUrl upper = StoreUrl::parse("POSTGRES://u@h/db?password=hunter22&application_name=x");
  EXPECT_EQ(upper.printable(), "postgresql://u@h/db?password=***&application_name=x");
  EXPECT_EQ(parameters_of(upper).at("password"), "hunter22");
  const StoreUrl odd = StoreUrl::parse("postgresql://u:pa/ss@word@h:5432/db");
  EXPECT_EQ(odd.printable(), "postgresql://u:***@h:5432/db");
  EXPECT_EQ(parameters_of(odd).at("password"), "pa/ss@word");
  // The user's own options and connect_timeout win over the defaults.
  const StoreUrl tuned = StoreUrl::parse("postgresql://h/db?connect_timeout=2&options=-c%20lock_timeout%3D1s");
  EXPECT_EQ(parameters_of(tuned).at("connect_timeout"), "2");
  EXPECT_TRUE(
      parameters_of(tuned).at("options").ends_with("-c lock_timeout=120s -c "
                                                   "idle_in_transaction_session_timeout=120s -c lock_timeout=1s"))
      << parameters_of(tuned).at("options");
  // Several hosts, an IPv6 one, a socket directory.
  const auto many = parameters_of(StoreUrl::parse("postgresql://a:1,[::1]:2,%2Ftmp/db"));
  EXPECT_EQ(many.at("host"), "a,::1,/tmp");
  EXPECT_EQ(many.at("port"), "1,2,");
}

TEST(StoreUrl, APathIsSqliteAndAnythingUrlLikeElseIsAUsageError) {
  EXPECT_FALSE(StoreUrl::parse("fabricbench-results/history.sqlite").is_server());
  EXPECT_EQ(StoreUrl::parse("/tmp/h.sqlite").path(), "/tmp/h.sqlite");
  EXPECT_FALSE(StoreUrl::parse("runs:2026.sqlite").is_server());  // a colon in a file name is a file name
  const auto refused = [](const std::string& text) {
    try {
      (void)StoreUrl::parse(text);
    } catch (const UsageError& e) { return std::string(e.what()); }
    return std::string("accepted");
  };
  EXPECT_THAT(refused("mysql://u:topsecret@h/db"), HasSubstr("fabricbench does not speak 'mysql://'"));
  EXPECT_THAT(refused("postgresql//u:topsecret@h/db"), HasSubstr("not a PostgreSQL URL"));
  EXPECT_THAT(refused("postgres:/u@h/db"), HasSubstr("not a PostgreSQL URL"));
  EXPECT_THAT(refused("http:/x"), HasSubstr("looks like a URL"));
  EXPECT_THAT(refused("postgresql://h:99999/db"), HasSubstr("port '99999'"));
  EXPECT_THAT(refused("postgresql://h/db?nonsense=1"), HasSubstr("'nonsense' is not a PostgreSQL connection"));
  EXPECT_THAT(refused("postgresql://u:top%zzsecret@h/db"), HasSubstr("'%'"));
  // However it is refused, the message does not hold the password.
  for (const std::string text :
       {"mysql://u:topsecret@h/db", "postgresql//u:topsecret@h/db",
        "postgresql://u:topsecret@h/db?password=topsecret&x", "postgresql://u:top%zzsecret@h/db"})
    EXPECT_THAT(refused(text), Not(HasSubstr("secret"))) << text;
}

TEST(StoreUrl, CommandLinesKeepTheUrlWithoutItsPassword) {
  std::vector<std::string> typed{"fabricbench",
                                 "run",
                                 "all_reduce",
                                 "--store",
                                 "postgresql://u:p w@h/db",
                                 "-D",
                                 "out dir/",
                                 "--store=postgres://v:pw2@h/db?password=pw3"};
  std::vector<char*> argv;
  for (std::string& a : typed) argv.push_back(a.data());
  const std::string line = redacted_command_line(static_cast<int>(argv.size()), argv.data());
  // '*' and '?' are quoted like any character a shell reads.
  EXPECT_EQ(line, "fabricbench run all_reduce --store 'postgresql://u:***@h/db' -D 'out dir/' "
                  "'--store=postgresql://v:***@h/db?password=***'");
  // The same for a line already written (a results file of an older fabricbench).
  EXPECT_EQ(redact_store_urls("fabricbench run --store 'postgresql://u:p w@h/db' -D x"),
            "fabricbench run --store 'postgresql://u:***@h/db' -D x");
  EXPECT_EQ(redact_store_urls("a --store=PostgreSQL://u:pw@h/db b"), "a --store=postgresql://u:***@h/db b");
  EXPECT_EQ(redact_store_urls("no url here: history.sqlite"), "no url here: history.sqlite");
  EXPECT_EQ(redact_store_urls("x postgresql://u:pw@h:bad/db"), "x postgresql://***");
}

}  // namespace
}  // namespace fb::store
