#include "tra/einsum/parser.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

namespace tra::einsum {
namespace {

struct Token {
  enum Kind { Ident, Number, String, Punct, End } kind;
  std::string text;
  double number = 0;
  int pos = 0;  // 0-based offset in the statement
};

std::vector<Token> tokenize(const std::string& s, const SourceLoc& where) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    const int pos = static_cast<int>(i);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Token::Ident, s.substr(i, j - i), 0, pos});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(s.substr(i), &used);
      } catch (const std::out_of_range&) {
        throw UserError(where.shifted(pos), "number out of the range of a double in EinSum statement");
      }
      out.push_back({Token::Number, s.substr(i, used), v, pos});
      i += used;
    } else if (c == '"' || c == '\'') {
      size_t j = s.find(c, i + 1);
      if (j == std::string::npos) throw UserError(where.shifted(pos), "unterminated string in EinSum statement");
      out.push_back({Token::String, s.substr(i + 1, j - i - 1), 0, pos});
      i = j + 1;
    } else if (std::string("[](),=+-*/^{}").find(c) != std::string::npos) {
      out.push_back({Token::Punct, std::string(1, c), 0, pos});
      ++i;
    } else {
      throw UserError(where.shifted(pos), std::string("unexpected character '") + c + "' in EinSum statement");
    }
  }
  out.push_back({Token::End, "", 0, static_cast<int>(s.size())});
  return out;
}

const std::map<std::string, Op> kUnary = {{"exp", Op::Exp},          {"log", Op::Log},         {"sqrt", Op::Sqrt}, {"relu", Op::Relu},
                                          {"neg", Op::Neg},          {"abs", Op::Abs},         {"sq", Op::Sq},     {"square", Op::Sq},
                                          {"tanh", Op::Tanh},        {"sigmoid", Op::Sigmoid}, {"step", Op::Step}, {"sign", Op::Sign},
                                          {"softplus", Op::Softplus}};
const std::map<std::string, Op> kBinary = {{"max", Op::Max}, {"min", Op::Min}, {"eq", Op::Eq}, {"pow", Op::Pow}};

class Parser {
 public:
  Parser(const std::string& text, const SourceLoc& where) : where_(where), toks_(tokenize(text, where)) {
    st_.text = text;
    st_.loc = where;
  }

  // A function of one scalar x, such as "relu(x)" or "2*x + 1".
  ScalarProgram parse_scalar_function() {
    scalar_mode_ = true;
    parse_expr();
    if (peek().kind != Token::End) fail(peek(), "unexpected '" + peek().text + "' after the end of the expression");
    if (!st_.inputs.empty()) fail(toks_.front(), "a transform kernel is a function of x alone, such as relu(x) or 2*x");
    return st_.join;
  }

  EinSum parse() {
    st_.output = parse_output();
    expect("=", "'=' after the output tensor");
    if (softmax_ahead()) fail(peek(), peek().text + " expands into several statements; it is written only as a statement of a deck's graph");
    parse_rhs();
    return st_;
  }

  // A statement of a deck's graph: one EinSum, or the softmax macro's four.
  std::vector<EinSum> parse_statement() {
    st_.output = parse_output();
    expect("=", "'=' after the output tensor");
    if (softmax_ahead()) return parse_softmax();
    parse_rhs();
    return {st_};
  }

 private:
  void parse_rhs() {
    if (peek().kind == Token::Ident && peek().text == "einsum" && peek(1).text == "(") {
      parse_numpy();
    } else {
      parse_explicit();
    }
    if (peek().kind != Token::End) fail(peek(), "unexpected '" + peek().text + "' after the end of the statement");
    check_labels();
  }

  // softmax(, softmax_j( or softmax_{j}( at the current token, or the same
  // with log_softmax (a tensor named softmax_j is followed by '[' and stays a
  // tensor).
  bool softmax_ahead() const { return is_softmax(peek(), peek(1)); }
  static bool is_softmax(const Token& t, const Token& after) {
    if (t.kind != Token::Ident) return false;
    const std::string name = t.text.compare(0, 4, "log_") == 0 ? t.text.substr(4) : t.text;
    if (name.compare(0, 7, "softmax") != 0) return false;
    if (name == "softmax") return after.text == "(";
    if (name[7] != '_') return false;
    return after.text == "(" || (name == "softmax_" && after.text == "{");
  }

  // P[..] = softmax_j(S[..]): EinDecomp §3's four statements, max over j, exp of
  // the difference, sum over j, quotient. The intermediates are named P.max,
  // P.exp and P.sum ('.' cannot occur in a name written in a deck).
  // P[..] = log_softmax_j(S[..]): the same max, exp and sum, then
  // P.lse = P.max + log(P.sum) and P = S − P.lse, which never takes the log of
  // a probability that underflowed.
  std::vector<EinSum> parse_softmax() {
    const Token fn = next();
    const bool log = fn.text.compare(0, 4, "log_") == 0;
    const std::string macro = log ? "log_softmax" : "softmax";
    const size_t base = macro.size() + 1;  // past "softmax_" or "log_softmax_"
    std::string label;
    int label_pos = fn.pos;
    if (fn.text.size() > base) {
      label = fn.text.substr(base);
      label_pos = fn.pos + static_cast<int>(base);
    } else if (fn.text.size() == base) {
      expect("{", "'{' or a label after " + macro + "_");
      const Token& l = next();
      if (l.kind != Token::Ident) fail(l, "expected the label " + macro + " normalises over, as in " + macro + "_{j}");
      label = l.text;
      label_pos = l.pos;
      if (peek().text == ",") fail(peek(), macro + " normalises over one label; write " + macro + "_j(...)");
      expect("}", "'}' after " + macro + "'s label");
    }
    expect("(", "'(' after " + fn.text);
    const std::string one =
        macro + " takes one tensor with its labels, such as " + macro + "_j(S[b,i,j]); compute an expression in a statement before it";
    const Token t = next();
    if (t.kind != Token::Ident || peek().text != "[") fail(t, t.kind == Token::End ? "expression ends too early" : one);
    TensorRef in{t.text, parse_labels(), where_.shifted(t.pos)};
    if (peek().kind == Token::End) fail(peek(), "expected ')' closing " + fn.text + "(, found end of statement");
    if (peek().text != ")") fail(peek(), one);
    next();
    if (peek().kind != Token::End)
      fail(peek(),
           "unexpected '" + peek().text + "' after " + macro + "(...): " + macro + " is the whole right-hand side; apply more in a later statement");
    if (in.labels.empty()) fail(t, macro + " needs a tensor with at least one label; '" + in.name + "' is written as a scalar");
    if (label.empty()) {
      label = in.labels.back();
    } else if (std::find(in.labels.begin(), in.labels.end(), label) == in.labels.end()) {
      throw UserError(where_.shifted(label_pos),
                      macro + " over label '" + label + "', which " + in.name + "[" + join_labels(in.labels) + "] does not have");
    }
    const TensorRef& out = st_.output;
    if (out.labels.size() != in.labels.size() || !std::is_permutation(out.labels.begin(), out.labels.end(), in.labels.begin()))
      throw UserError(out.loc, "the output of " + macro + " has the labels of its input, in any order: " + out.name + "[" + join_labels(in.labels) +
                                   "], not " + out.name + "[" + join_labels(out.labels) + "]");
    Labels rest;
    for (const auto& l : in.labels)
      if (l != label) rest.push_back(l);
    const SourceLoc at = where_.shifted(fn.pos);
    const TensorRef mx{out.name + ".max", rest, at}, ex{out.name + ".exp", in.labels, at}, sm{out.name + ".sum", rest, at},
        lse{out.name + ".lse", rest, at};
    auto statement = [&](const TensorRef& o, std::vector<TensorRef> ins, AggOp agg, std::initializer_list<Op> ops) {
      EinSum e;
      e.text = st_.text;
      e.loc = where_;
      e.output = o;
      e.inputs = std::move(ins);
      e.agg = agg;
      if (agg != AggOp::None) e.agg_labels = {label};
      for (Op op : ops) e.join.ops[e.join.size++] = op;
      return e;
    };
    if (log)
      return {statement(mx, {in}, AggOp::Max, {Op::In0}), statement(ex, {in, mx}, AggOp::None, {Op::In0, Op::In1, Op::Sub, Op::Exp}),
              statement(sm, {ex}, AggOp::Sum, {Op::In0}), statement(lse, {mx, sm}, AggOp::None, {Op::In0, Op::In1, Op::Log, Op::Add}),
              statement(out, {in, lse}, AggOp::None, {Op::In0, Op::In1, Op::Sub})};
    return {statement(mx, {in}, AggOp::Max, {Op::In0}), statement(ex, {in, mx}, AggOp::None, {Op::In0, Op::In1, Op::Sub, Op::Exp}),
            statement(sm, {ex}, AggOp::Sum, {Op::In0}), statement(out, {ex, sm}, AggOp::None, {Op::In0, Op::In1, Op::Div})};
  }

  static std::string join_labels(const Labels& ls) {
    std::string s;
    for (const auto& l : ls) s += (s.empty() ? "" : ",") + l;
    return s;
  }

  const Token& peek(int ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& next() { return toks_[std::min(pos_++, toks_.size() - 1)]; }
  [[noreturn]] void fail(const Token& t, const std::string& msg) const { throw UserError(where_.shifted(t.pos), msg); }
  const Token& expect(const std::string& punct, const std::string& what) {
    if (peek().kind != Token::Punct || peek().text != punct)
      fail(peek(), "expected " + what + ", found " + (peek().kind == Token::End ? std::string("end of statement") : "'" + peek().text + "'"));
    return next();
  }

  TensorRef parse_output() {
    const Token& t = next();
    if (t.kind != Token::Ident) fail(t, "expected the output tensor's name at the start of the statement");
    TensorRef r{t.text, {}, where_.shifted(t.pos)};
    if (peek().text == "[") r.labels = parse_labels();
    return r;
  }

  Labels parse_labels() {
    expect("[", "'['");
    Labels ls;
    if (peek().text == "]") {
      next();
      return ls;
    }
    for (;;) {
      const Token& t = next();
      if (t.kind != Token::Ident) fail(t, "expected a label (a name such as i or batch)");
      if (std::find(ls.begin(), ls.end(), t.text) != ls.end()) fail(t, "label '" + t.text + "' repeated within one tensor");
      ls.push_back(t.text);
      if (peek().text == ",") {
        next();
        continue;
      }
      expect("]", "',' or ']' in the label list");
      return ls;
    }
  }

  // sum_j, sum_{j,k}, max_j, min, sum: an aggregation prefix, if present.
  bool parse_agg_prefix() {
    const Token& t = peek();
    if (t.kind != Token::Ident) return false;
    static const std::map<std::string, AggOp> kAgg = {{"sum", AggOp::Sum}, {"max", AggOp::Max}, {"min", AggOp::Min}};
    std::string head = t.text, tail;
    const size_t us = t.text.find('_');
    if (us != std::string::npos) {
      head = t.text.substr(0, us);
      tail = t.text.substr(us + 1);
    }
    auto it = kAgg.find(head);
    if (it == kAgg.end()) return false;
    if (peek(1).text == "[") return false;  // a tensor named sum_x
    if (peek(1).text == "(" && us == std::string::npos && head != "sum") return false;  // max(a, b)
    next();
    st_.agg = it->second;
    agg_written_ = true;
    agg_pos_ = t.pos;
    if (!tail.empty()) {
      declared_agg_.push_back(tail);
    } else if (us != std::string::npos && peek().text == "{") {
      next();
      for (;;) {
        const Token& l = next();
        if (l.kind != Token::Ident) fail(l, "expected a label in the aggregation's {...}");
        declared_agg_.push_back(l.text);
        if (peek().text == ",") {
          next();
          continue;
        }
        expect("}", "',' or '}'");
        break;
      }
    }
    return true;
  }

  void parse_explicit() {
    parse_agg_prefix();
    parse_expr();
  }

  void emit(Op op, double imm = 0) {
    if (st_.join.size >= ScalarProgram::kMaxOps) fail(peek(), "scalar expression too long (at most 48 operations)");
    // ScalarProgram::eval keeps at most kMaxStack pending values; deeper
    // nesting would write past its stack.
    const bool push = op == Op::In0 || op == Op::In1 || op == Op::Const;
    const bool binary = !push && op <= Op::Pow;
    depth_ += push ? 1 : binary ? -1 : 0;
    if (depth_ > ScalarProgram::kMaxStack) fail(peek(), "scalar expression nested too deeply (at most 16 values pending at once)");
    st_.join.ops[st_.join.size] = op;
    st_.join.imm[st_.join.size] = imm;
    ++st_.join.size;
  }

  // Parentheses, function calls and signs nest by recursion; a limit well
  // inside any thread's stack, checked before going deeper.
  static constexpr int kMaxNesting = 100;
  struct Nested {
    Parser& p;
    Nested(Parser& parser, const Token& at) : p(parser) {
      if (++p.nesting_ > kMaxNesting)
        p.fail(at, "expression nested too deeply (more than " + std::to_string(kMaxNesting) + " levels of parentheses, calls or signs)");
    }
    ~Nested() { --p.nesting_; }
  };

  void parse_expr() {
    const Nested nested(*this, peek());
    parse_term();
    while (peek().text == "+" || peek().text == "-") {
      const bool add = next().text == "+";
      parse_term();
      emit(add ? Op::Add : Op::Sub);
    }
  }
  void parse_term() {
    parse_unary();
    while (peek().text == "*" || peek().text == "/") {
      const bool mul = next().text == "*";
      parse_unary();
      emit(mul ? Op::Mul : Op::Div);
    }
  }
  void parse_unary() {
    if (peek().text == "-") {
      const Nested nested(*this, peek());
      next();
      parse_unary();
      emit(Op::Neg);
      return;
    }
    parse_power();
  }
  void parse_power() {
    parse_primary();
    if (peek().text == "^") {
      next();
      const Token& t = next();
      if (t.kind != Token::Number) fail(t, "expected a number after '^'");
      if (t.number == 2) emit(Op::Sq);
      else {
        emit(Op::Const, t.number);
        emit(Op::Pow);
      }
    }
  }
  void parse_primary() {
    const Token& t = next();
    if (t.kind == Token::Number) {
      emit(Op::Const, t.number);
      return;
    }
    if (t.kind == Token::Punct && t.text == "(") {
      parse_expr();
      expect(")", "')'");
      return;
    }
    if (t.kind != Token::Ident)
      fail(t, t.kind == Token::End ? "expression ends too early" : "expected a tensor, a number or a function, found '" + t.text + "'");
    if (!scalar_mode_ && is_softmax(t, peek()))
      fail(t, "softmax is the whole right-hand side of its statement, as in P[i,j] = softmax_j(S[i,j]); use its result in a later statement");
    if (peek().text == "(") {
      next();
      auto u = kUnary.find(t.text);
      auto b = kBinary.find(t.text);
      if (u != kUnary.end()) {
        parse_expr();
        expect(")", "')' closing " + t.text + "(");
        emit(u->second);
      } else if (b != kBinary.end()) {
        parse_expr();
        expect(",", "',' between the two arguments of " + t.text);
        parse_expr();
        expect(")", "')' closing " + t.text + "(");
        emit(b->second);
      } else {
        fail(t, "unknown function '" + t.text + "'; known: exp log sqrt relu neg abs sq tanh sigmoid step sign softplus max min eq pow");
      }
      return;
    }
    if (scalar_mode_ && t.text == "x" && peek().text != "[") {
      emit(Op::In0);
      return;
    }
    if (peek().text != "[") fail(t, "tensor '" + t.text + "' needs its labels, as in " + t.text + "[i,j]");
    TensorRef r{t.text, parse_labels(), where_.shifted(t.pos)};
    emit(input_slot(r, t));
  }

  Op input_slot(const TensorRef& r, const Token& t) {
    for (size_t i = 0; i < st_.inputs.size(); ++i)
      if (st_.inputs[i].name == r.name && st_.inputs[i].labels == r.labels) return i == 0 ? Op::In0 : Op::In1;
    if (st_.inputs.size() == 2) fail(t, "a statement takes at most two input tensors; split it into several statements");
    st_.inputs.push_back(r);
    return st_.inputs.size() == 1 ? Op::In0 : Op::In1;
  }

  void parse_numpy() {
    next();  // einsum
    expect("(", "'('");
    const Token& spec = next();
    if (spec.kind != Token::String) fail(spec, "expected the subscripts string, as in \"ij,jk->ik\"");
    std::vector<std::string> ins;
    std::string outs;
    bool has_arrow = false;
    {
      std::string s = spec.text;
      s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }), s.end());
      const size_t arrow = s.find("->");
      std::string lhs = s;
      if (arrow != std::string::npos) {
        has_arrow = true;
        lhs = s.substr(0, arrow);
        outs = s.substr(arrow + 2);
      }
      size_t start = 0;
      for (;;) {
        size_t comma = lhs.find(',', start);
        ins.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      for (const auto& part : ins)
        for (char c : part)
          if (!std::isalpha(static_cast<unsigned char>(c))) fail(spec, std::string("subscripts may hold only letters, found '") + c + "'");
    }
    if (ins.size() > 2) fail(spec, "a statement takes at most two input tensors; split it into several statements");
    std::vector<TensorRef> refs;
    for (size_t k = 0; k < ins.size(); ++k) {
      expect(",", "',' and the tensor for subscripts '" + ins[k] + "'");
      const Token& t = next();
      if (t.kind != Token::Ident) fail(t, "expected a tensor name");
      TensorRef r{t.text, {}, where_.shifted(t.pos)};
      for (char c : ins[k]) {
        std::string l(1, c);
        if (std::find(r.labels.begin(), r.labels.end(), l) != r.labels.end()) fail(spec, "label '" + l + "' repeated within one tensor");
        r.labels.push_back(l);
      }
      refs.push_back(r);
    }
    expect(")", "')' closing einsum(");
    if (!has_arrow) {  // numpy's implicit output: labels seen once, sorted
      std::map<char, int> count;
      for (const auto& part : ins)
        for (char c : part) ++count[c];
      for (auto& [c, n] : count)
        if (n == 1) outs += c;
    }
    if (!st_.output.labels.empty() && st_.output.labels.size() != outs.size())
      fail(spec, "the output is written with " + std::to_string(st_.output.labels.size()) + " label(s) but the subscripts give " +
                     std::to_string(outs.size()));
    st_.output.labels.clear();
    for (char c : outs) {
      const std::string l(1, c);
      if (!std::isalpha(static_cast<unsigned char>(c))) fail(spec, std::string("output subscripts may hold only letters, found '") + c + "'");
      if (std::find(st_.output.labels.begin(), st_.output.labels.end(), l) != st_.output.labels.end())
        fail(spec, "output label '" + l + "' repeated");
      st_.output.labels.push_back(l);
    }
    for (const auto& r : refs) {
      Token fake{Token::Ident, r.name, 0, r.loc.column - where_.column};
      emit(input_slot(r, fake));
    }
    if (refs.size() == 2) emit(Op::Mul);
    st_.agg = AggOp::Sum;
    agg_pos_ = spec.pos;
  }

  void check_labels() {
    if (st_.inputs.empty()) throw UserError(where_, "the statement reads no tensor; write at least one input such as X[i,j]");
    std::vector<Label> seen;
    for (const auto& in : st_.inputs)
      for (const auto& l : in.labels)
        if (std::find(seen.begin(), seen.end(), l) == seen.end()) seen.push_back(l);
    for (const auto& l : st_.output.labels)
      if (std::find(seen.begin(), seen.end(), l) == seen.end())
        throw UserError(st_.output.loc, "output label '" + l + "' appears in no input: broadcasting to a new label is not supported");
    st_.agg_labels.clear();
    for (const auto& l : seen)
      if (std::find(st_.output.labels.begin(), st_.output.labels.end(), l) == st_.output.labels.end()) st_.agg_labels.push_back(l);
    if (!declared_agg_.empty()) {
      std::set<Label> a(st_.agg_labels.begin(), st_.agg_labels.end()), d(declared_agg_.begin(), declared_agg_.end());
      if (a != d) {
        std::string got, want;
        for (const auto& l : declared_agg_) got += (got.empty() ? "" : ",") + l;
        for (const auto& l : st_.agg_labels) want += (want.empty() ? "" : ",") + l;
        throw UserError(where_.shifted(agg_pos_), "aggregation names labels {" + got + "} but the labels absent from the output are {" + want + "}");
      }
    }
    if (st_.agg_labels.empty()) {
      if (agg_written_ && !declared_agg_.empty())
        throw UserError(where_.shifted(agg_pos_), "nothing to aggregate: every input label is in the output");
      st_.agg = AggOp::None;
    } else if (st_.agg == AggOp::None) {
      st_.agg = AggOp::Sum;  // Einstein's convention
    }
  }

  SourceLoc where_;
  bool scalar_mode_ = false;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  EinSum st_;
  bool agg_written_ = false;
  int agg_pos_ = 0;
  Labels declared_agg_;
  int depth_ = 0;  // values on ScalarProgram's stack after the ops emitted so far
  int nesting_ = 0;  // parse_expr and parse_unary calls under way
};

}  // namespace

EinSum parse_einsum(const std::string& text, const SourceLoc& where) { return Parser(text, where).parse(); }

std::vector<EinSum> parse_statement(const std::string& text, const SourceLoc& where) { return Parser(text, where).parse_statement(); }

ScalarProgram parse_scalar_function(const std::string& text, const SourceLoc& where) { return Parser(text, where).parse_scalar_function(); }

}  // namespace tra::einsum
