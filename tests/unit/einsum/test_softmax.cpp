// The softmax macro of the EinSum language (EinDecomp §3): P[..] = softmax_j(S[..])
// expands into max over j, exp of the difference, sum over j and the quotient,
// with intermediates P.max, P.exp, P.sum; malformed uses are errors located at
// the offending column; in a deck the four statements run in place of the macro
// and name their problems at the macro's line and column.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "support/reference_evaluator.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"

using tra::SourceLoc;
using tra::einsum::AggOp;
using tra::einsum::EinSum;
using tra::einsum::Labels;
using tra::einsum::parse_statement;

namespace {

const SourceLoc kWhere{"deck.yaml", 4, 7};

std::string at(size_t offset) { return "deck.yaml:4:" + std::to_string(kWhere.column + static_cast<int>(offset)) + ": "; }

std::string error_of(const std::string& text) {
  try {
    parse_statement(text, kWhere);
  } catch (const tra::UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text;
  return "";
}

// The error of reading and lowering a deck (on 2 ranks), or "".
std::string deck_error(const std::string& deck) {
  try {
    const tra::model::Workflow wf = tra::io::parse_deck(deck, "deck.yaml", "");
    tra::logical::lower(wf, 2);
  } catch (const tra::UserError& e) {
    return e.what();
  }
  return "";
}

bool same_program(const tra::einsum::ScalarProgram& a, const tra::einsum::ScalarProgram& b) {
  if (a.size != b.size) return false;
  for (int i = 0; i < a.size; ++i)
    if (a.ops[i] != b.ops[i] || a.imm[i] != b.imm[i]) return false;
  return true;
}

}  // namespace

TEST(TraSoftmax, ExpandsIntoTheFourStatementsOfSection3) {
  const std::string text = "P[b,h,i,j] = softmax_j(S[b,h,i,j])";
  const std::vector<EinSum> st = parse_statement(text, kWhere);
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st[0].str(), "P.max[b,h,i] = max_{j} S[b,h,i,j]");
  EXPECT_EQ(st[1].str(), "P.exp[b,h,i,j] = exp((S[b,h,i,j] - P.max[b,h,i]))");
  EXPECT_EQ(st[2].str(), "P.sum[b,h,i] = sum_{j} P.exp[b,h,i,j]");
  EXPECT_EQ(st[3].str(), "P[b,h,i,j] = P.exp[b,h,i,j] / P.sum[b,h,i]");
  EXPECT_EQ(st[0].agg, AggOp::Max);
  EXPECT_EQ(st[0].agg_labels, (Labels{"j"}));
  EXPECT_EQ(st[1].agg, AggOp::None);
  EXPECT_TRUE(st[1].agg_labels.empty());
  EXPECT_EQ(st[2].agg, AggOp::Sum);
  EXPECT_EQ(st[2].agg_labels, (Labels{"j"}));
  EXPECT_EQ(st[3].agg, AggOp::None);
  // The join programs are those of the statements written out by hand.
  const char* by_hand[] = {"M[b,h,i] = max_j S[b,h,i,j]", "E[b,h,i,j] = exp(S[b,h,i,j] - M[b,h,i])", "Z[b,h,i] = sum_j E[b,h,i,j]",
                           "P[b,h,i,j] = E[b,h,i,j] / Z[b,h,i]"};
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(same_program(st[k].join, tra::einsum::parse_einsum(by_hand[k], kWhere).join)) << by_hand[k];
  EXPECT_TRUE(st[0].join.is_identity());
  EXPECT_TRUE(st[2].join.is_identity());
  EXPECT_DOUBLE_EQ(st[1].join.eval(3.0, 1.0), std::exp(2.0));
  EXPECT_DOUBLE_EQ(st[3].join.eval(3.0, 4.0), 0.75);
  // Every statement is located at the macro and keeps its text; the input and
  // the output at their own columns, the intermediates at `softmax_j`.
  for (const auto& e : st) {
    EXPECT_EQ(e.loc.str(), kWhere.str());
    EXPECT_EQ(e.text, text);
  }
  EXPECT_EQ(st[0].inputs[0].loc.column, kWhere.column + 23);  // S
  EXPECT_EQ(st[1].inputs[0].loc.column, kWhere.column + 23);
  EXPECT_EQ(st[1].inputs[1].loc.column, kWhere.column + 13);  // softmax_j
  EXPECT_EQ(st[0].output.loc.column, kWhere.column + 13);
  EXPECT_EQ(st[3].output.loc.column, kWhere.column);  // P
  EXPECT_EQ(st[3].output.loc.line, kWhere.line);
}

TEST(TraSoftmax, LabelSpellings) {
  // No suffix: the input's last label. softmax_{j} names one label like sum_{j}.
  for (const std::string text : {"P[i,j] = softmax(S[i,j])", "P[i,j] = softmax_{j}(S[i,j])", "P[i,j] = softmax_j ( S[i,j] )"}) {
    const auto st = parse_statement(text, kWhere);
    ASSERT_EQ(st.size(), 4u) << text;
    EXPECT_EQ(st[0].str(), "P.max[i] = max_{j} S[i,j]") << text;
    EXPECT_EQ(st[3].str(), "P[i,j] = P.exp[i,j] / P.sum[i]") << text;
  }
  // Any label of the input, not only the last one; the output may permute them.
  auto st = parse_statement("Pt[j,i] = softmax_i(S[i,j])", kWhere);
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st[0].str(), "Pt.max[j] = max_{i} S[i,j]");
  EXPECT_EQ(st[1].str(), "Pt.exp[i,j] = exp((S[i,j] - Pt.max[j]))");
  EXPECT_EQ(st[2].str(), "Pt.sum[j] = sum_{i} Pt.exp[i,j]");
  EXPECT_EQ(st[3].str(), "Pt[j,i] = Pt.exp[i,j] / Pt.sum[j]");
  // A vector: the max and the sum are scalars.
  st = parse_statement("p[t] = softmax(x[t])", kWhere);
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st[0].str(), "p.max[] = max_{t} x[t]");
  EXPECT_EQ(st[1].str(), "p.exp[t] = exp((x[t] - p.max[]))");
  EXPECT_EQ(st[3].str(), "p[t] = p.exp[t] / p.sum[]");
  // Labels named like the macro stay labels; a tensor named softmax_x stays a tensor.
  EXPECT_EQ(parse_statement("Y[i] = softmax_x[i] * 2", kWhere).size(), 1u);
  EXPECT_EQ(parse_statement("Y[softmax] = softmax(S[softmax])", kWhere)[0].agg_labels, (Labels{"softmax"}));
  // Any other statement is one statement.
  const auto one = parse_statement("C[i,k] = sum_j A[i,j] * B[j,k]", kWhere);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].str(), "C[i,k] = sum_{j} A[i,j] * B[j,k]");
}

TEST(TraSoftmax, BadFormsAreLocated) {
  // The label is not one of the input's: at the label.
  EXPECT_EQ(error_of("P[i,j] = softmax_k(S[i,j])"), at(17) + "softmax over label 'k', which S[i,j] does not have");
  EXPECT_EQ(error_of("P[i,j] = softmax_{k}(S[i,j])"), at(18) + "softmax over label 'k', which S[i,j] does not have");
  EXPECT_EQ(error_of("P[i,j] = softmax_{i,j}(S[i,j])"), at(19) + "softmax normalises over one label; write softmax_j(...)");
  // The output must keep the input's labels: at the output.
  EXPECT_EQ(error_of("P[i] = softmax_j(S[i,j])"), at(0) + "the output of softmax has the labels of its input, in any order: P[i,j], not P[i]");
  EXPECT_EQ(error_of("P[i,k] = softmax_j(S[i,j])"), at(0) + "the output of softmax has the labels of its input, in any order: P[i,j], not P[i,k]");
  EXPECT_EQ(error_of("P = softmax(S[i,j])"), at(0) + "the output of softmax has the labels of its input, in any order: P[i,j], not P[]");
  // One tensor reference as the argument: at what is not one.
  const std::string one = "softmax takes one tensor with its labels, such as softmax_j(S[b,i,j]); compute an expression in a statement before it";
  EXPECT_EQ(error_of("P[i,j] = softmax_j(S[i,j] / 2)"), at(26) + one);
  EXPECT_EQ(error_of("P[i,j] = softmax_j(2 * S[i,j])"), at(19) + one);
  EXPECT_EQ(error_of("P[i,j] = softmax_j(S)"), at(19) + one);
  EXPECT_EQ(error_of("P[i,j] = softmax_j(S[i,j], T[i,j])"), at(25) + one);
  EXPECT_EQ(error_of("P[i,j] = softmax_j(S[i,j]"), at(25) + "expected ')' closing softmax_j(, found end of statement");
  EXPECT_EQ(error_of("P[i,j] = softmax_j()"), at(19) + one);
  EXPECT_EQ(error_of("P[] = softmax(s[])"), at(14) + "softmax needs a tensor with at least one label; 's' is written as a scalar");
  // softmax is the whole right-hand side.
  EXPECT_EQ(error_of("P[i,j] = softmax_j(S[i,j]) * 2"),
            at(27) + "unexpected '*' after softmax(...): softmax is the whole right-hand side; apply more in a later statement");
  const std::string whole =
      "softmax is the whole right-hand side of its statement, as in P[i,j] = softmax_j(S[i,j]); use its result in a later statement";
  EXPECT_EQ(error_of("P[i,j] = 2 * softmax_j(S[i,j])"), at(13) + whole);
  EXPECT_EQ(error_of("P[i,j] = sum softmax_j(S[i,j])"), at(13) + whole);
  // The macro is several statements: parse_einsum, which returns one, refuses it.
  try {
    tra::einsum::parse_einsum("P[i,j] = softmax_j(S[i,j])", kWhere);
    ADD_FAILURE() << "parse_einsum accepted a softmax";
  } catch (const tra::UserError& e) {
    EXPECT_EQ(std::string(e.what()), at(9) + "softmax_j expands into several statements; it is written only as a statement of a deck's graph");
  }
}

namespace {

// Line 5, column 6 is where the statement text starts (after `  - "`).
std::string deck(const std::string& decl_s, const std::string& statement, const std::string& rest = "") {
  return "tensors:\n"  // 1
         "  - {name: S, shape: [2, 3, 4], source: zeros}\n"  // 2
         "  - " +
         decl_s +
         "\n"  // 3
         "graph:\n"  // 4
         "  - \"" +
         statement + "\"\n" + rest;  // 5
}

}  // namespace

TEST(TraSoftmax, DeckExpandsInPlace) {
  const tra::model::Workflow wf = tra::io::parse_deck(deck("{name: T, shape: [4], source: ones}", "P[b,i,j] = softmax_j(S[b,i,j])",
                                                           "  - \"Y[b,i] = sum_j P[b,i,j] * T[j]\"\n"
                                                           "outputs:\n"
                                                           "  - {tensor: P.sum, file: out.h5}\n"
                                                           "run:\n"
                                                           "  partitioning:\n"
                                                           "    P.exp: {b: 2}\n"),
                                                      "deck.yaml", "");
  ASSERT_EQ(wf.graph.size(), 5u);
  const std::vector<std::string> names{"P.max", "P.exp", "P.sum", "P", "Y"};
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(tra::model::statement_output(wf.graph[i]), names[i]);
  EXPECT_EQ(tra::model::statement_loc(wf.graph[0]).str(), "deck.yaml:5:6");
  EXPECT_EQ(std::get<EinSum>(wf.graph[1]).inputs[1].loc.str(), "deck.yaml:5:17");
  // It lowers: intermediates can be written out and partitioned by name.
  const tra::logical::Lowering low = tra::logical::lower(wf, 2);
  EXPECT_EQ(low.d.at("P.exp").at("b"), 2);
  EXPECT_EQ(low.d.at("P.exp").at("j"), 1);
}

TEST(TraSoftmax, DeckErrorsPointAtTheMacro) {
  // Unknown input and a rank mismatch: at the input, inside the macro.
  EXPECT_EQ(deck_error(deck("{name: T, shape: [4], source: ones}", "P[b,i,j] = softmax_j(Q[b,i,j])")),
            "deck.yaml:5:27: unknown tensor 'Q': declare it under tensors or compute it in an earlier statement");
  EXPECT_EQ(deck_error(deck("{name: T, shape: [4], source: ones}", "P[i,j] = softmax_j(S[i,j])")),
            "deck.yaml:5:25: 'S' has rank 3 (shape [2, 3, 4]) but is written with 2 labels");
  // Redefining a declared tensor, or a second softmax into the same name: at the statement.
  EXPECT_EQ(deck_error(deck("{name: T, shape: [2, 3, 4], source: ones}", "T[b,i,j] = softmax_j(S[b,i,j])")),
            "deck.yaml:5:6: statement redefines 'T', which is declared as an input tensor");
  EXPECT_EQ(deck_error(deck("{name: T, shape: [4], source: ones}", "P[b,i,j] = softmax_j(S[b,i,j])", "  - \"P[b,i,j] = softmax_i(S[b,i,j])\"\n")),
            "deck.yaml:6:6: 'P.max' is computed twice; give each statement its own output name");
  // A syntax error inside the macro: at its column in the deck.
  EXPECT_EQ(deck_error(deck("{name: T, shape: [4], source: ones}", "P[b,i,j] = softmax_k(S[b,i,j])")),
            "deck.yaml:5:25: softmax over label 'k', which S[b,i,j] does not have");
  // A user name cannot reach the intermediates' names: '.' is not part of a name.
  EXPECT_EQ(deck_error(deck("{name: T, shape: [4], source: ones}", "P[b,i,j] = softmax_j(S[b,i,j])", "  - \"Y[b,i] = P.max[b,i]\"\n")),
            "deck.yaml:6:16: unexpected character '.' in EinSum statement");
  EXPECT_EQ(deck_error("tensors:\n  - {name: P.max, shape: [2], source: zeros}\ngraph: []\n"),
            "deck.yaml:2:12: tensor name 'P.max' must be a letter or '_' followed by letters, digits or '_'");
}

// log_softmax: the same max, exp and sum, then P.lse = P.max + log(P.sum) and
// P = S − P.lse. Its values are exact where softmax's log would not be: a
// probability that underflows (e^-800) still has its log (-800 and change).
TEST(TraSoftmax, LogSoftmaxNeverTakesTheLogOfAnUnderflow) {
  const std::vector<EinSum> st = parse_statement("P[b,l] = log_softmax_l(S[b,l])", kWhere);
  ASSERT_EQ(st.size(), 5u);
  EXPECT_EQ(st[0].output.name, "P.max");
  EXPECT_EQ(st[1].output.name, "P.exp");
  EXPECT_EQ(st[2].output.name, "P.sum");
  EXPECT_EQ(st[3].str(), "P.lse[b] = (P.max[b] + log(P.sum[b]))");
  EXPECT_EQ(st[4].str(), "P[b,l] = (S[b,l] - P.lse[b])");
  std::map<std::string, tra::testing::Dense> t;
  t["S"] = tra::testing::Dense{{2, 3}, {0.0, 800.0, 1.0, -3.0, 2.0, 2.5}};
  for (const auto& e : st) t[e.output.name] = tra::testing::evaluate(e, t);
  const auto& p = t.at("P").v;
  EXPECT_NEAR(p[0], -800.0, 1e-12);  // log(e^0 / (e^0 + e^800 + e^1))
  EXPECT_NEAR(p[1], 0.0, 1e-12);
  const double lse = 2.5 + std::log(std::exp(-5.5) + std::exp(-0.5) + 1.0);
  EXPECT_NEAR(p[3], -3.0 - lse, 4e-15 * std::abs(lse));
  EXPECT_NEAR(p[5], 2.5 - lse, 4e-15 * std::abs(lse));
}
