#include "tra/logical/key_expr.hpp"

#include <cctype>
#include <functional>
#include <set>

namespace tra::logical {

struct KeyExprNode {
  enum Kind { Const, Var, Unary, Binary } kind = Const;
  Index value = 0;  // Const
  int var = 0;  // Var: k<var>
  std::string op;  // Unary ("-", "!") or Binary
  std::shared_ptr<const KeyExprNode> a, b;

  Index eval(const Key& k) const {
    switch (kind) {
      case Const:
        return value;
      case Var:
        return k[static_cast<size_t>(var)];
      case Unary:
        return op == "-" ? -a->eval(k) : !a->eval(k);
      case Binary:
        break;
    }
    const Index x = a->eval(k);
    if (op == "&&") return x && b->eval(k);
    if (op == "||") return x || b->eval(k);
    const Index y = b->eval(k);
    if (op == "+") return x + y;
    if (op == "-") return x - y;
    if (op == "*") return x * y;
    if (op == "/") return y == 0 ? 0 : x / y;
    if (op == "%") return y == 0 ? 0 : x % y;
    if (op == "==") return x == y;
    if (op == "!=") return x != y;
    if (op == "<") return x < y;
    if (op == "<=") return x <= y;
    if (op == ">") return x > y;
    return x >= y;  // ">="
  }
};

namespace {

using NodeP = std::shared_ptr<const KeyExprNode>;

class KeyParser {
 public:
  KeyParser(const std::string& s, int arity, const SourceLoc& where) : s_(s), arity_(arity), where_(where) {}

  NodeP parse_whole_expr() {
    NodeP e = parse_or();
    skip();
    if (i_ < s_.size()) fail("unexpected '" + s_.substr(i_, 1) + "'");
    return e;
  }

  std::vector<NodeP> parse_list() {
    std::vector<NodeP> out;
    skip();
    if (!eat("[")) fail("a key map is written as a list such as [k0] or [2*k0 + k1]");
    skip();
    if (eat("]")) return out;
    for (;;) {
      out.push_back(parse_or());
      skip();
      if (eat(",")) continue;
      if (eat("]")) break;
      fail("expected ',' or ']'");
    }
    skip();
    if (i_ < s_.size()) fail("unexpected text after ']'");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw UserError(where_.shifted(static_cast<int>(i_)), msg); }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(const std::string& t) {
    skip();
    if (s_.compare(i_, t.size(), t) == 0) {
      i_ += t.size();
      return true;
    }
    return false;
  }
  static NodeP bin(const std::string& op, NodeP a, NodeP b) {
    auto n = std::make_shared<KeyExprNode>();
    n->kind = KeyExprNode::Binary;
    n->op = op;
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
  }
  // Parentheses and signs nest by recursion: limited before going deeper.
  static constexpr int kMaxNesting = 100;
  struct Nested {
    KeyParser& p;
    explicit Nested(KeyParser& parser) : p(parser) {
      if (++p.nesting_ > kMaxNesting)
        p.fail("expression nested too deeply (more than " + std::to_string(kMaxNesting) + " levels of parentheses or signs)");
    }
    ~Nested() { --p.nesting_; }
  };
  NodeP parse_or() {
    const Nested nested(*this);
    NodeP a = parse_and();
    while (eat("||")) a = bin("||", a, parse_and());
    return a;
  }
  NodeP parse_and() {
    NodeP a = parse_cmp();
    while (eat("&&")) a = bin("&&", a, parse_cmp());
    return a;
  }
  NodeP parse_cmp() {
    NodeP a = parse_add();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"})
      if (eat(op)) return bin(op, a, parse_add());
    return a;
  }
  NodeP parse_add() {
    NodeP a = parse_mul();
    for (;;) {
      if (eat("+")) a = bin("+", a, parse_mul());
      else if (eat("-")) a = bin("-", a, parse_mul());
      else return a;
    }
  }
  NodeP parse_mul() {
    NodeP a = parse_unary();
    for (;;) {
      if (eat("*")) a = bin("*", a, parse_unary());
      else if (eat("/")) a = bin("/", a, parse_unary());
      else if (eat("%")) a = bin("%", a, parse_unary());
      else return a;
    }
  }
  NodeP parse_unary() {
    for (const char* op : {"-", "!"}) {
      if (eat(op)) {
        const Nested nested(*this);
        auto n = std::make_shared<KeyExprNode>();
        n->kind = KeyExprNode::Unary;
        n->op = op;
        n->a = parse_unary();
        return n;
      }
    }
    return parse_atom();
  }
  NodeP parse_atom() {
    skip();
    if (eat("(")) {
      NodeP e = parse_or();
      if (!eat(")")) fail("expected ')'");
      return e;
    }
    auto n = std::make_shared<KeyExprNode>();
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      size_t j = i_;
      while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
      n->kind = KeyExprNode::Const;
      if (j - i_ > 18) fail("integer too large");  // more than 18 digits would overflow stoll
      n->value = std::stoll(s_.substr(i_, j - i_));
      i_ = j;
      return n;
    }
    if (i_ < s_.size() && s_[i_] == 'k') {
      size_t j = i_ + 1;
      while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
      if (j > i_ + 1) {
        const std::string digits = s_.substr(i_ + 1, j - i_ - 1);
        if (digits.size() > 9 || std::stoi(digits) >= arity_)  // more than 9 digits would overflow stoi
          fail("key dimension k" + digits + " does not exist: keys here have " + std::to_string(arity_) + " dimensions (k0..k" +
               std::to_string(arity_ - 1) + ")");
        n->kind = KeyExprNode::Var;
        n->var = std::stoi(digits);
        i_ = j;
        return n;
      }
    }
    fail("expected a key dimension (k0, k1, ...), an integer or '('");
  }

  std::string s_;
  size_t i_ = 0;
  int arity_;
  SourceLoc where_;
  int nesting_ = 0;  // parse_or and parse_unary calls under way
};

}  // namespace

KeyExpr KeyExpr::parse_predicate(const std::string& text, int arity, const SourceLoc& where) {
  KeyExpr e;
  e.text_ = text;
  e.arity_ = arity;
  e.outputs_.push_back(KeyParser(text, arity, where).parse_whole_expr());
  return e;
}

KeyExpr KeyExpr::parse_map(const std::string& text, int arity, const SourceLoc& where) {
  KeyExpr e;
  e.text_ = text;
  e.arity_ = arity;
  e.outputs_ = KeyParser(text, arity, where).parse_list();
  return e;
}

KeyExpr KeyExpr::projection(const std::vector<int>& positions, int arity) {
  KeyExpr e;
  e.arity_ = arity;
  e.text_ = "[";
  for (size_t i = 0; i < positions.size(); ++i) {
    auto n = std::make_shared<KeyExprNode>();
    n->kind = KeyExprNode::Var;
    n->var = positions[i];
    e.outputs_.push_back(n);
    e.text_ += (i ? ", k" : "k") + std::to_string(positions[i]);
  }
  e.text_ += "]";
  return e;
}

KeyExpr KeyExpr::identity(int arity) {
  std::vector<int> all(static_cast<size_t>(arity));
  for (int i = 0; i < arity; ++i) all[static_cast<size_t>(i)] = i;
  return projection(all, arity);
}

bool KeyExpr::test(const Key& key) const { return outputs_.at(0)->eval(key) != 0; }

Key KeyExpr::map(const Key& key) const {
  Key out;
  out.reserve(outputs_.size());
  for (const auto& o : outputs_) out.push_back(o->eval(key));
  return out;
}

std::vector<int> KeyExpr::dims_read() const {
  std::set<int> vars;
  std::function<void(const KeyExprNode&)> walk = [&](const KeyExprNode& n) {
    if (n.kind == KeyExprNode::Var) vars.insert(n.var);
    if (n.a) walk(*n.a);
    if (n.b) walk(*n.b);
  };
  for (const auto& o : outputs_) walk(*o);
  return {vars.begin(), vars.end()};
}

bool KeyExpr::is_identity() const {
  if (static_cast<int>(outputs_.size()) != arity_) return false;
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (outputs_[i]->kind != KeyExprNode::Var || outputs_[i]->var != static_cast<int>(i)) return false;
  return true;
}

}  // namespace tra::logical
