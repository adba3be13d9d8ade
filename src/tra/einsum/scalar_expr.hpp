#pragma once
// Scalar expressions as trees, for the gradient pass (autodiff/): a join
// function ⊗ read from its ScalarProgram, its partial derivatives taken
// symbolically, and the results written back as programs over whichever
// tensors a gradient statement reads.
//
// Leaves are variables numbered by the caller (x = 0, y = 1, the output's
// gradient = 2, ...), so that one expression can be emitted over different
// inputs: ∂(x·y)/∂x = y is emitted as in1 of a statement that reads (Z.grad, Y).
// Nodes are simplified as they are made (constants folded by the interpreter,
// so that they round as evaluation would; x·1, x+0, 0·x, --x dropped).
#include <optional>
#include <vector>

#include "tra/einsum/scalar_program.hpp"

namespace tra::einsum {

class ScalarExpr {
 public:
  using Id = int;

  Id var(int v);
  Id constant(Scalar c);
  Id apply(Op op, Id a, Id b = -1);  // a unary op ignores b

  // The program's value with in0 = `x` and in1 = `y`.
  Id read(const ScalarProgram& p, Id x, Id y);
  // ∂e/∂(variable v).
  Id derivative(Id e, int v);

  bool is_constant(Id e, Scalar* value = nullptr) const;
  // The outermost operation of e and its (first) operand.
  Op top(Id e) const { return nodes_.at(static_cast<size_t>(e)).op; }
  Id operand(Id e) const { return nodes_.at(static_cast<size_t>(e)).a; }
  // Bit v set: variable v occurs in e.
  unsigned vars(Id e) const;

  // e as a program whose input slot for variable v is slot_of[v] (0 or 1;
  // -1: the variable must not occur). Empty when it does not fit a
  // ScalarProgram (kMaxOps operations, kMaxStack values pending).
  std::optional<ScalarProgram> program(Id e, const std::vector<int>& slot_of) const;

 private:
  struct Node {
    Op op = Op::Const;  // Op::In0 marks a variable
    Scalar c = 0;  // Const: the value; variable: its number
    Id a = -1, b = -1;
  };
  Id add(Node n);
  static bool binary(Op op) { return op != Op::In0 && op != Op::In1 && op != Op::Const && op <= Op::Pow; }
  bool emit(Id e, const std::vector<int>& slot_of, ScalarProgram& out, int& depth) const;

  std::vector<Node> nodes_;
};

}  // namespace tra::einsum
