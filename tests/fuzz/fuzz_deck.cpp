// libFuzzer target: the deck reader and, through it, the EinSum, scalar and
// key-expression parsers, on arbitrary bytes. Every input must end in a
// Workflow or a UserError (the located message a user sees); anything else
// (a crash, a sanitizer report, another exception, a hang) is a finding.
// Built and run by scripts/fuzz; its corpus is kept in tests/fuzz/corpus.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tra/common/error.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/key_expr.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const tra::model::Workflow wf = tra::io::parse_deck(text, "fuzz.yaml", "");
    // Filter predicates and rekey maps are parsed when lowered; parse them
    // here too, as lowering would.
    for (const auto& s : wf.graph)
      if (const auto* t = std::get_if<tra::model::TraStatement>(&s)) {
        if (t->op == tra::model::TraStatement::Op::Filter) tra::logical::KeyExpr::parse_predicate(t->expr, 4, t->expr_loc);
        if (t->op == tra::model::TraStatement::Op::ReKey) tra::logical::KeyExpr::parse_map(t->expr, 4, t->expr_loc);
      }
  } catch (const tra::UserError&) {
    // The expected way to refuse bad input.
  }
  return 0;
}
