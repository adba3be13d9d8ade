#include "tra/physical/search_record.hpp"

#include <cstdio>
#include <cstdlib>

#include "tra/common/error.hpp"

namespace tra::physical {
namespace {

// Fields one after another, each ended by a newline; a string as its length
// and its bytes.
class Writer {
 public:
  Writer& num(double x) {
    char s[64];
    std::snprintf(s, sizeof s, "%a\n", x);
    out_ += s;
    return *this;
  }
  Writer& num(long long x) {
    out_ += std::to_string(x) + "\n";
    return *this;
  }
  Writer& str(const std::string& s) {
    num(static_cast<long long>(s.size()));
    out_ += s + "\n";
    return *this;
  }
  Writer& cost(const PlanCost& c) {
    num(c.seconds).num(static_cast<long long>(c.floats_moved)).num(c.paper_cost).num(c.flops).num(static_cast<long long>(c.operators));
    num(static_cast<long long>(c.node_seconds.size()));
    for (double s : c.node_seconds) num(s);
    return *this;
  }
  std::string text() && { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  double real() { return std::strtod(field().c_str(), nullptr); }
  long long integer() { return std::strtoll(field().c_str(), nullptr, 10); }
  std::string str() {
    const auto n = static_cast<size_t>(integer());
    if (at_ + n + 1 > s_.size()) fail();
    std::string out = s_.substr(at_, n);
    at_ += n + 1;
    return out;
  }
  PlanCost cost() {
    PlanCost c;
    c.seconds = real();
    c.floats_moved = static_cast<Index>(integer());
    c.paper_cost = real();
    c.flops = real();
    c.operators = static_cast<int>(integer());
    c.node_seconds.resize(count());
    for (double& s : c.node_seconds) s = real();
    return c;
  }
  size_t count() {
    const long long n = integer();
    if (n < 0 || static_cast<size_t>(n) > s_.size()) fail();
    return static_cast<size_t>(n);
  }
  void end() const {
    if (at_ != s_.size()) fail();
  }

 private:
  std::string field() {
    const size_t nl = s_.find('\n', at_);
    if (nl == std::string::npos) fail();
    std::string f = s_.substr(at_, nl - at_);
    at_ = nl + 1;
    return f;
  }
  [[noreturn]] void fail() const { throw InternalError("a search record that search_record() did not write (at byte " + std::to_string(at_) + ")"); }
  const std::string& s_;
  size_t at_ = 0;
};

}  // namespace

std::string search_record(const Optimized& o) {
  Writer w;
  w.num(static_cast<long long>(o.steps.size()));
  for (const PlanStep& s : o.steps)
    w.num(static_cast<long long>(s.kind)).num(static_cast<long long>(s.a)).num(static_cast<long long>(s.b)).num(static_cast<long long>(s.c));
  w.num(static_cast<long long>(o.phases.size()));
  for (const PhaseReport& p : o.phases)
    w.str(p.name)
        .str(p.what)
        .num(static_cast<long long>(p.skipped))
        .num(static_cast<long long>(p.changes))
        .num(p.seconds)
        .cost(p.before)
        .cost(p.after);
  w.num(static_cast<long long>(o.applied.size()));
  for (const AppliedRule& a : o.applied) w.str(a.rule).str(a.where).num(a.seconds_before).num(a.seconds_after);
  w.num(static_cast<long long>(o.alternatives.size()));
  for (const Alternative& a : o.alternatives)
    w.num(static_cast<long long>(a.tra_node)).str(a.statement).str(a.strategy).cost(a.cost).str(a.invalid).num(static_cast<long long>(a.chosen));
  w.num(static_cast<long long>(o.notes.size()));
  for (const std::string& n : o.notes) w.str(n);
  w.num(o.seconds);
  return std::move(w).text();
}

void read_search_record(const std::string& text, Optimized& o) {
  Reader r(text);
  o.steps.resize(r.count());
  for (PlanStep& s : o.steps) {
    s.kind = static_cast<int>(r.integer());
    s.a = static_cast<int>(r.integer());
    s.b = static_cast<int>(r.integer());
    s.c = static_cast<int>(r.integer());
  }
  o.phases.resize(r.count());
  for (PhaseReport& p : o.phases) {
    p.name = r.str();
    p.what = r.str();
    p.skipped = r.integer() != 0;
    p.changes = static_cast<int>(r.integer());
    p.seconds = r.real();
    p.before = r.cost();
    p.after = r.cost();
  }
  o.applied.resize(r.count());
  for (AppliedRule& a : o.applied) {
    a.rule = r.str();
    a.where = r.str();
    a.seconds_before = r.real();
    a.seconds_after = r.real();
  }
  o.alternatives.resize(r.count());
  for (Alternative& a : o.alternatives) {
    a.tra_node = static_cast<int>(r.integer());
    a.statement = r.str();
    a.strategy = r.str();
    a.cost = r.cost();
    a.invalid = r.str();
    a.chosen = r.integer() != 0;
  }
  o.notes.resize(r.count());
  for (std::string& n : o.notes) n = r.str();
  o.seconds = r.real();
  r.end();
}

Optimized replay_search(const IaPlan& initial, const OptimizerOptions& options, const std::string& record) {
  Optimized read;
  read_search_record(record, read);
  Optimized out = replay(initial, options, read.steps);
  out.phases = std::move(read.phases);
  out.applied = std::move(read.applied);
  out.alternatives = std::move(read.alternatives);
  out.notes = std::move(read.notes);
  out.seconds = read.seconds;
  return out;
}

}  // namespace tra::physical
