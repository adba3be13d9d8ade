#include "tra/einsum/scalar_program.hpp"

#include <sstream>
#include <vector>

namespace tra::einsum {

bool ScalarProgram::is_product() const {
  return size == 3 && ops[2] == Op::Mul &&
         ((ops[0] == Op::In0 && ops[1] == Op::In1) || (ops[0] == Op::In1 && ops[1] == Op::In0));
}

bool ScalarProgram::is_identity() const { return size == 1 && ops[0] == Op::In0; }

int ScalarProgram::flops_per_eval() const {
  int n = 0;
  for (int i = 0; i < size; ++i)
    if (ops[i] != Op::In0 && ops[i] != Op::In1 && ops[i] != Op::Const) ++n;
  return n;
}

int ScalarProgram::inputs_used() const {
  int used = 0;
  for (int i = 0; i < size; ++i) {
    if (ops[i] == Op::In0 && used < 1) used = 1;
    if (ops[i] == Op::In1) used = 2;
  }
  return used;
}

std::string ScalarProgram::str(const std::string& x, const std::string& y) const {
  std::vector<std::string> st;
  auto fn = [](const char* name, const std::string& a) { return std::string(name) + "(" + a + ")"; };
  for (int i = 0; i < size; ++i) {
    std::string r, l;
    switch (ops[i]) {
      case Op::In0: st.push_back(x); continue;
      case Op::In1: st.push_back(y); continue;
      case Op::Const: {
        std::ostringstream os;
        os << imm[i];
        st.push_back(os.str());
        continue;
      }
      default: break;
    }
    const bool binary = ops[i] == Op::Add || ops[i] == Op::Sub || ops[i] == Op::Mul || ops[i] == Op::Div ||
                        ops[i] == Op::Max || ops[i] == Op::Min || ops[i] == Op::Pow;
    if (binary) {
      r = st.back(); st.pop_back();
      l = st.back(); st.pop_back();
    } else {
      l = st.back(); st.pop_back();
    }
    switch (ops[i]) {
      case Op::Add: st.push_back("(" + l + " + " + r + ")"); break;
      case Op::Sub: st.push_back("(" + l + " - " + r + ")"); break;
      case Op::Mul: st.push_back(l + " * " + r); break;
      case Op::Div: st.push_back(l + " / " + r); break;
      case Op::Max: st.push_back("max(" + l + ", " + r + ")"); break;
      case Op::Min: st.push_back("min(" + l + ", " + r + ")"); break;
      case Op::Pow: st.push_back("pow(" + l + ", " + r + ")"); break;
      case Op::Neg: st.push_back("-" + l); break;
      case Op::Exp: st.push_back(fn("exp", l)); break;
      case Op::Log: st.push_back(fn("log", l)); break;
      case Op::Sqrt: st.push_back(fn("sqrt", l)); break;
      case Op::Relu: st.push_back(fn("relu", l)); break;
      case Op::Abs: st.push_back(fn("abs", l)); break;
      case Op::Sq: st.push_back(fn("sq", l)); break;
      case Op::Tanh: st.push_back(fn("tanh", l)); break;
      case Op::Sigmoid: st.push_back(fn("sigmoid", l)); break;
      default: break;
    }
  }
  return st.empty() ? std::string() : st.back();
}

const char* agg_name(AggOp op) {
  switch (op) {
    case AggOp::Sum: return "sum";
    case AggOp::Max: return "max";
    case AggOp::Min: return "min";
    case AggOp::None: break;
  }
  return "none";
}

}  // namespace tra::einsum
