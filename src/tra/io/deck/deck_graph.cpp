// The deck's graph: EinSum statements and the TRA's own operators (filter, rekey, tile, concat, transform).
#include "tra/einsum/parser.hpp"
#include "tra/io/deck/deck_sections.hpp"

namespace tra::io::deck {
namespace {

class GraphSection : public DeckValues {
 public:
  explicit GraphSection(const DeckValues& values) : DeckValues(values) {}

  void read_graph(const YAML::Node& list, Workflow& wf) {
    if (!list.IsSequence()) fail(list, "'graph' must be a list of statements");
    for (const auto& s : list) {
      if (s.IsScalar()) {
        for (auto& e : einsum::parse_statement(s.as<std::string>(), text_loc(s))) wf.graph.push_back(std::move(e));  // a softmax is four
      } else if (s.IsMap()) {
        wf.graph.push_back(read_tra_statement(s));
      } else {
        fail(s, "a statement is an EinSum string such as \"C[i,k] = sum_j A[i,j] * B[j,k]\" or a TRA mapping with 'op'");
      }
    }
  }

  TraStatement read_tra_statement(const YAML::Node& s) {
    TraStatement t;
    t.loc = loc(s);
    const std::string op = scalar(s, "op", "a TRA statement");
    t.input = scalar(s, "input", "a TRA statement");
    t.output = scalar(s, "output", "a TRA statement");
    if (!is_identifier(t.output)) fail(s["output"], "output name '" + t.output + "' is not a valid name");
    if (op == "filter") {
      check_keys(s, {"op", "input", "output", "where"}, "a filter");
      t.op = TraStatement::Op::Filter;
      t.expr = scalar(s, "where", "a filter");
      t.expr_loc = text_loc(s["where"]);
    } else if (op == "rekey") {
      check_keys(s, {"op", "input", "output", "key"}, "a rekey");
      t.op = TraStatement::Op::ReKey;
      t.expr = scalar(s, "key", "a rekey");
      t.expr_loc = text_loc(s["key"]);
    } else if (op == "transform") {
      check_keys(s, {"op", "input", "output", "kernel"}, "a transform");
      t.op = TraStatement::Op::Transform;
      t.expr = scalar(s, "kernel", "a transform");
      t.expr_loc = text_loc(s["kernel"]);
      if (t.expr != "diag") einsum::parse_scalar_function(t.expr, t.expr_loc);  // reports errors now
    } else if (op == "tile") {
      check_keys(s, {"op", "input", "output", "dim", "size"}, "a tile");
      t.op = TraStatement::Op::Tile;
      if (!s["dim"] || !s["size"]) fail(s, "a tile needs 'dim' (array dimension) and 'size' (tile size)");
      t.dim = static_cast<int>(integer(s["dim"], "dim", 0, kMaxRank - 1));
      t.size = integer(s["size"], "size", 1);
      t.expr_loc = loc(s["size"]);
    } else if (op == "concat") {
      check_keys(s, {"op", "input", "output", "key_dim", "dim"}, "a concat");
      t.op = TraStatement::Op::Concat;
      if (!s["dim"] || !s["key_dim"]) fail(s, "a concat needs 'key_dim' (key dimension) and 'dim' (array dimension)");
      t.key_dim = static_cast<int>(integer(s["key_dim"], "key_dim", 0, kMaxRank - 1));
      t.dim = static_cast<int>(integer(s["dim"], "dim", 0, kMaxRank - 1));
      t.expr_loc = loc(s["key_dim"]);
    } else {
      fail(s["op"], "unknown op '" + op + "'; expected filter, rekey, transform, tile or concat");
    }
    return t;
  }
};

}  // namespace

void read_graph(const DeckValues& values, const YAML::Node& list, Workflow& wf) { GraphSection(values).read_graph(list, wf); }

}  // namespace tra::io::deck
