// Names as data: the names a user may give --disable, --strategy and
// --partitioner come from the tables that define them (the optimizer's
// rules, strategy families and phases; the partitioners), and the docs
// document each one: a rule added without its line in docs/optimizer.md, or
// a partitioner without its words in docs/deck.md, fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tra/app/plan_deck.hpp"
#include "tra/app/run_deck.hpp"
#include "tra/model/workflow.hpp"
#include "tra/physical/optimizer.hpp"

namespace tra::app {
namespace {

std::string docs(const std::vector<std::string>& files) {
  std::string all;
  for (const std::string& f : files) {
    std::ifstream in(std::filesystem::path(TRA_TESTS_DIR) / ".." / "docs" / f);
    std::ostringstream s;
    s << in.rdbuf();
    EXPECT_FALSE(s.str().empty()) << "docs/" << f;
    all += s.str();
  }
  return all;
}

// Named in a table's first column or in code font (alone or as an option's value).
bool documented(const std::string& text, const std::string& name) {
  for (const std::string& form : {"| " + name + " |", "`" + name + "`", " " + name + "`"})
    if (text.find(form) != std::string::npos) return true;
  return false;
}

TEST(OptionNames, EveryNameFromTheTablesIsDocumented) {
  const std::string optimizer = docs({"optimizer.md", "eindecomp.md"});
  std::vector<std::string> names = physical::rule_and_strategy_names();
  names.push_back(kBaselineLabelings);
  for (const std::string& n : names)
    EXPECT_TRUE(documented(optimizer, n)) << "--disable " << n << " is not in docs/optimizer.md or docs/eindecomp.md";
  const std::string deck = docs({"deck.md"});
  for (const std::string& s : physical::strategy_names()) EXPECT_TRUE(documented(deck, s)) << "--strategy " << s << " is not in docs/deck.md";
  for (auto k : {model::RunOptions::Partitioner::EinDecomp, model::RunOptions::Partitioner::Sqrt, model::RunOptions::Partitioner::DataParallel,
                 model::RunOptions::Partitioner::ModelParallel, model::RunOptions::Partitioner::Manual})
    EXPECT_TRUE(documented(deck, model::partitioner_name(k))) << "--partitioner " << model::partitioner_name(k) << " is not in docs/deck.md";
}

TEST(OptionNames, TheListsTheMessagesGiveComeFromTheTables) {
  for (const std::string& n : physical::rule_and_strategy_names()) EXPECT_NE(disable_names().find(n), std::string::npos) << n;
  EXPECT_NE(disable_names().find(kBaselineLabelings), std::string::npos);
  for (const std::string& s : physical::strategy_names()) EXPECT_NE(strategy_names().find(s), std::string::npos) << s;
  EXPECT_EQ(model::partitioner_names(), "eindecomp, sqrt, data-parallel, model-parallel or manual");
  for (const auto& [name, kind] :
       {std::pair{"sqrt", model::RunOptions::Partitioner::Sqrt}, std::pair{"manual", model::RunOptions::Partitioner::Manual}})
    EXPECT_EQ(model::partitioner_named(name), kind);
  EXPECT_FALSE(model::partitioner_named("best"));
}

}  // namespace
}  // namespace tra::app
