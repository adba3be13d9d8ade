#pragma once
// The chunk-side functions of IA operators as plain data: which kernel a
// local join runs, what a one-to-one map does to a chunk, how an aggregation
// reduces a group. They are printed, compared and kept with the plan; the
// executor binds them to the kernels that run them (exec/bound_kernels.hpp).
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tra/core/key.hpp"
#include "tra/einsum/scalar_program.hpp"
#include "tra/kernels/einsum_kernel.hpp"

namespace tra::physical {

// An EinSum kernel (EinDecomp §4.3's K) with the statement it computes. The
// kernel object is immutable, built once from the statement and the chunk
// extents of its labels; two are the same when their text and shapes are.
struct EinSumCall {
  std::shared_ptr<const kernels::EinSumKernel> kernel;
  std::string statement;
  std::string text() const { return kernel->name() + " " + statement; }
  bool operator==(const EinSumCall& o) const;
};

// arrayMapFunc of a one-to-one map: steps applied first to last; none is idOp.
class ArrayFn {
 public:
  struct Diagonal {};  // the diagonal of a square chunk (it only picks elements)
  struct Elements {  // a scalar program on every element
    einsum::ScalarProgram program;
  };
  using Step = std::variant<EinSumCall, Diagonal, Elements>;

  ArrayFn() = default;
  static ArrayFn of(Step s);
  bool identity() const { return steps_.empty(); }
  ArrayFn after(const ArrayFn& inner) const;  // this ∘ inner
  bool selects() const;  // every step only picks elements (diag; idOp counts)
  std::string text() const;  // "" for idOp
  const std::vector<Step>& steps() const { return steps_; }
  bool operator==(const ArrayFn& o) const;
  bool operator!=(const ArrayFn& o) const { return !(*this == o); }

 private:
  std::vector<Step> steps_;
};

// projOp of a local join: an EinSum kernel on one chunk of each input, then
// the maps R1-7 composed into it. `zip`: run the kernel's ⊗ element by
// element on aligned chunks of any shape (R1-7's distributive form, after a
// selecting map shrank both inputs).
struct JoinKernel {
  EinSumCall call;
  bool zip = false;
  ArrayFn then;

  // ⊗ alone, elementwise: R1-7 may distribute a selecting map over it.
  bool zippable() const { return call.kernel->elementwise() && then.identity(); }
  // ⊗ element by element on chunks of one shape, nothing after it: the
  // result may be written over an input chunk that nothing else holds.
  bool elementwise() const { return then.identity() && (zip || call.kernel->elementwise()); }
  // acc += projOp(left, right) in place (a GEMM with beta = 1).
  bool adds_into() const { return !zip && then.identity() && call.kernel->adds_into(); }
  bool operator==(const JoinKernel& o) const { return call == o.call && zip == o.zip && then == o.then; }
};

// aggOp of a local aggregation: how a group becomes one chunk, then the
// maps R1-4 composed into it (`finish`, once per group).
struct AggKernel {
  struct Fold {  // members combined element-wise with ⊕ (decomposable: R2-5 may split it)
    einsum::AggOp op;
  };
  struct Assemble {  // re-chunking: pieces keyed <key..., position...> placed into one chunk
    Shape piece, out_chunk;
  };
  struct Concat {  // Concat(keyDim, arrayDim): members ordered by keyDim, concatenated along arrayDim
    int key_dim, dim;
  };
  std::variant<Fold, Assemble, Concat> reduce;
  ArrayFn finish;

  // The ⊕ members are folded with, or None for an aggOp that needs the whole
  // group (assembling, concatenating).
  einsum::AggOp fold() const;
  std::string reduce_text() const;  // the reduction alone: "sum", "assemble [4, 4]"
  std::string text() const;  // finish∘reduction
  bool operator==(const AggKernel& o) const;
};

}  // namespace tra::physical
