#include "tra/physical/chunk_fn.hpp"

namespace tra::physical {

bool EinSumCall::operator==(const EinSumCall& o) const {
  if (kernel == o.kernel) return true;
  return statement == o.statement && kernel->name() == o.kernel->name() && kernel->x_shape() == o.kernel->x_shape() &&
         kernel->y_shape() == o.kernel->y_shape() && kernel->z_shape() == o.kernel->z_shape();
}

ArrayFn ArrayFn::of(Step s) {
  ArrayFn f;
  f.steps_.push_back(std::move(s));
  return f;
}

ArrayFn ArrayFn::after(const ArrayFn& inner) const {
  ArrayFn f = inner;
  f.steps_.insert(f.steps_.end(), steps_.begin(), steps_.end());
  return f;
}

bool ArrayFn::selects() const {
  for (const Step& s : steps_)
    if (!std::holds_alternative<Diagonal>(s)) return false;
  return true;
}

std::string ArrayFn::text() const {
  std::string s;
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    std::string t;
    if (const auto* e = std::get_if<EinSumCall>(&*it)) t = e->text();
    else if (std::holds_alternative<Diagonal>(*it)) t = "diag";
    else t = std::get<Elements>(*it).program.str();
    s += (s.empty() ? "" : "∘") + t;
  }
  return s;
}

bool ArrayFn::operator==(const ArrayFn& o) const {
  if (steps_.size() != o.steps_.size()) return false;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step &a = steps_[i], &b = o.steps_[i];
    if (a.index() != b.index()) return false;
    if (const auto* e = std::get_if<EinSumCall>(&a)) {
      if (!(*e == std::get<EinSumCall>(b))) return false;
    } else if (const auto* m = std::get_if<Elements>(&a)) {
      // The same operations on the same constants (their printed text rounds constants to 6 digits).
      if (!m->program.same(std::get<Elements>(b).program)) return false;
    }
  }
  return true;
}

einsum::AggOp AggKernel::fold() const {
  if (const auto* f = std::get_if<Fold>(&reduce)) return f->op;
  return einsum::AggOp::None;
}

std::string AggKernel::reduce_text() const {
  if (const auto* f = std::get_if<Fold>(&reduce)) return einsum::agg_name(f->op);
  if (const auto* a = std::get_if<Assemble>(&reduce)) return "assemble " + shape_string(a->out_chunk);
  return "arrayConcatOp(" + std::to_string(std::get<Concat>(reduce).key_dim) + "," + std::to_string(std::get<Concat>(reduce).dim) + ")";
}

std::string AggKernel::text() const { return finish.identity() ? reduce_text() : finish.text() + "∘" + reduce_text(); }

bool AggKernel::operator==(const AggKernel& o) const {
  if (reduce.index() != o.reduce.index() || finish != o.finish) return false;
  if (const auto* f = std::get_if<Fold>(&reduce)) return f->op == std::get<Fold>(o.reduce).op;
  if (const auto* a = std::get_if<Assemble>(&reduce))
    return a->piece == std::get<Assemble>(o.reduce).piece && a->out_chunk == std::get<Assemble>(o.reduce).out_chunk;
  return std::get<Concat>(reduce).key_dim == std::get<Concat>(o.reduce).key_dim && std::get<Concat>(reduce).dim == std::get<Concat>(o.reduce).dim;
}

}  // namespace tra::physical
