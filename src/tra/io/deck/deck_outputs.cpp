// The deck's outputs: which tensor goes to which file and dataset, and how it is stored.
#include "tra/io/deck/deck_sections.hpp"

namespace tra::io::deck {
namespace {

class OutputsSection : public DeckValues {
 public:
  explicit OutputsSection(const DeckValues& values) : DeckValues(values) {}

  void read_outputs(const YAML::Node& list, Workflow& wf) {
    if (!list.IsSequence()) fail(list, "'outputs' must be a list of {tensor, file, dataset}");
    for (const auto& o : list) {
      if (!o.IsMap()) fail(o, "each output is a mapping {tensor, file, dataset}");
      check_keys(o, {"tensor", "file", "dataset", "dtype", "chunks", "gzip"}, "an output");
      OutputDecl d;
      d.loc = loc(o);
      d.tensor = scalar(o, "tensor", "an output");
      d.file = scalar(o, "file", "an output");
      check_name_text(o["file"], d.file, "file name");
      d.dataset = o["dataset"] ? dataset_name(o["dataset"]) : "/" + d.tensor;
      if (const YAML::Node t = o["dtype"]) {
        const std::string v = t.IsScalar() ? t.Scalar() : "";
        if (v != "float64" && v != "float32") fail(t, "dtype is float64 (the default) or float32");
        d.storage.float32 = v == "float32";
        d.dtype_given = true;
      }
      if (o["chunks"]) d.storage.chunks = shape(o["chunks"], "chunks");
      if (const YAML::Node g = o["gzip"]) {
        d.storage.gzip = static_cast<int>(integer(g, "gzip (a compression level from 1, fastest, to 9, smallest)", 1, 9));
      }
      for (const auto& prev : wf.outputs)
        if (prev.file == d.file && prev.dataset == d.dataset) fail(o, "dataset " + d.dataset + " of " + d.file + " is written twice");
      wf.outputs.push_back(d);
    }
  }
};

}  // namespace

void read_outputs(const DeckValues& values, const YAML::Node& list, Workflow& wf) { OutputsSection(values).read_outputs(list, wf); }

}  // namespace tra::io::deck
