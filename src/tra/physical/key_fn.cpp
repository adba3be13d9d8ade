#include "tra/physical/key_fn.hpp"

#include <algorithm>

namespace tra::physical {
namespace {

// Two parsed deck expressions are the same function when they read keys of
// the same arity and have the same text.
bool same_expr(const std::shared_ptr<const logical::KeyExpr>& a, const std::shared_ptr<const logical::KeyExpr>& b) {
  if (a == b) return true;
  return a && b && a->arity() == b->arity() && a->out_arity() == b->out_arity() && a->text() == b->text();
}

std::string positions_text(const std::vector<int>& p) {
  std::string s;
  for (int d : p) s += (s.empty() ? "" : ",") + std::to_string(d);
  return "π<" + s + ">";
}

}  // namespace

KeyFn KeyFn::of(std::shared_ptr<const logical::KeyExpr> expr) {
  KeyFn f;
  if (!expr->is_identity()) f.steps_.push_back(Expr{std::move(expr)});
  return f;
}

KeyFn KeyFn::projecting(std::vector<int> positions, int arity) {
  KeyFn f;
  bool same = static_cast<int>(positions.size()) == arity;
  for (size_t i = 0; i < positions.size(); ++i) same &= positions[i] == static_cast<int>(i);
  if (!same) f.steps_.push_back(Project{std::move(positions)});
  return f;
}

Key KeyFn::operator()(const Key& k) const {
  Key x = k;
  for (const Step& s : steps_) {
    if (const auto* e = std::get_if<Expr>(&s)) x = e->expr->map(x);
    else x = project(x, std::get<Project>(s).positions);
  }
  return x;
}

KeyFn KeyFn::after(const KeyFn& inner) const {
  KeyFn f = inner;
  f.steps_.insert(f.steps_.end(), steps_.begin(), steps_.end());
  return f;
}

std::string KeyFn::text() const {
  std::string s;
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    const std::string t = std::holds_alternative<Expr>(*it) ? std::get<Expr>(*it).expr->text() : positions_text(std::get<Project>(*it).positions);
    s += (s.empty() ? "" : "∘") + t;
  }
  return s;
}

bool KeyFn::operator==(const KeyFn& o) const {
  if (steps_.size() != o.steps_.size()) return false;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step &a = steps_[i], &b = o.steps_[i];
    if (a.index() != b.index()) return false;
    if (const auto* e = std::get_if<Expr>(&a)) {
      if (!same_expr(e->expr, std::get<Expr>(b).expr)) return false;
    } else if (std::get<Project>(a).positions != std::get<Project>(b).positions) {
      return false;
    }
  }
  return true;
}

KeyPredicate KeyPredicate::of(std::shared_ptr<const logical::KeyExpr> expr) {
  KeyPredicate p;
  p.text_ = expr->text();
  p.dims_ = expr->dims_read();
  p.all_.push_back({std::move(expr), {}});
  return p;
}

bool KeyPredicate::test(const Key& k) const {
  for (const Term& t : all_) {
    Key x = k;
    // The last relayout maps the key seen now to the one before it, and so on
    // back to the layout the predicate was written for.
    for (auto it = t.through.rbegin(); it != t.through.rend(); ++it) {
      Key old(static_cast<size_t>(it->old_arity), 0);
      for (auto [nd, od] : it->new_to_old) old[static_cast<size_t>(od)] = x[static_cast<size_t>(nd)];
      x = std::move(old);
    }
    if (!t.expr->test(x)) return false;
  }
  return true;
}

KeyPredicate KeyPredicate::relayout(int old_arity, std::vector<std::pair<int, int>> new_to_old, const std::string& note) const {
  KeyPredicate p = *this;
  p.dims_.clear();
  for (auto [nd, od] : new_to_old) p.dims_.push_back(nd);
  std::sort(p.dims_.begin(), p.dims_.end());
  p.dims_.erase(std::unique(p.dims_.begin(), p.dims_.end()), p.dims_.end());
  for (Term& t : p.all_) t.through.push_back({old_arity, new_to_old, note});
  p.text_ += note;
  return p;
}

KeyPredicate KeyPredicate::both(const KeyPredicate& o) const {
  KeyPredicate p = *this;
  p.all_.insert(p.all_.end(), o.all_.begin(), o.all_.end());
  p.dims_.insert(p.dims_.end(), o.dims_.begin(), o.dims_.end());
  std::sort(p.dims_.begin(), p.dims_.end());
  p.dims_.erase(std::unique(p.dims_.begin(), p.dims_.end()), p.dims_.end());
  p.text_ = "(" + text_ + ") && (" + o.text_ + ")";
  return p;
}

bool KeyPredicate::operator==(const KeyPredicate& o) const {
  if (all_.size() != o.all_.size() || dims_ != o.dims_) return false;
  for (size_t i = 0; i < all_.size(); ++i) {
    const Term &a = all_[i], &b = o.all_[i];
    if (!same_expr(a.expr, b.expr) || a.through.size() != b.through.size()) return false;
    for (size_t r = 0; r < a.through.size(); ++r)
      if (a.through[r].old_arity != b.through[r].old_arity || a.through[r].new_to_old != b.through[r].new_to_old) return false;
  }
  return true;
}

std::vector<Key> expand_keys(const Expansion& e, const Key& k) {
  std::vector<Key> out;
  if (const auto* r = std::get_if<Retile>(&e)) {
    const size_t rank = r->split.size();
    for_each_key(r->split, [&](const Key& sub) {
      Key key(2 * rank);
      for (size_t d = 0; d < rank; ++d) {
        const Index q = k[d] * r->split[d] + sub[d];
        key[d] = q / r->group[d];
        key[rank + d] = q % r->group[d];
      }
      out.push_back(std::move(key));
    });
  } else if (const auto* t = std::get_if<TileKeys>(&e)) {
    for (Index p = 0; p < t->pieces; ++p) {
      Key x = k;
      x.push_back(p);
      out.push_back(std::move(x));
    }
  } else if (const auto* c = std::get_if<Replicate>(&e)) {
    for_each_key(c->coords, [&](const Key& coord) {
      Key x = k;
      x.insert(x.end(), coord.begin(), coord.end());
      out.push_back(std::move(x));
    });
  } else {
    const Spread& s = std::get<Spread>(e);
    out.push_back(k);
    for (size_t t = 0; t < s.coords.size(); ++t) {
      std::vector<Key> next;
      const size_t at = static_cast<size_t>(s.first) + t;
      for (const Key& x : out)
        for (Index v = x[at]; v < s.extents[t]; v += s.coords[t]) {
          Key y = x;
          y[at] = v;
          next.push_back(std::move(y));
        }
      out = std::move(next);
    }
  }
  return out;
}

bool shares_chunk(const Expansion& e) { return std::holds_alternative<Replicate>(e) || std::holds_alternative<Spread>(e); }

}  // namespace tra::physical
