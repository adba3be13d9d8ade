// The deck's train: the loss, the optimizer and its update rule, iterations or epochs, the batch order, the log and checkpoints.
#include "tra/io/deck/deck_sections.hpp"
#include "tra/model/batch_order.hpp"

namespace tra::io::deck {
namespace {

class TrainSection : public DeckValues {
 public:
  explicit TrainSection(const DeckValues& values) : DeckValues(values) {}

  // train: {loss: L, optimizer: {...}, iterations: N, log: {file: F}} — the
  // checks that need the graph (a scalar loss, a path from every parameter
  // to it) are the gradient pass's (autodiff/).
  void read_train(const YAML::Node& train, Workflow& wf) {
    if (!train.IsMap()) fail(train, "'train' must be a mapping with 'loss' (a scalar tensor of the graph)");
    check_keys(train, {"loss", "optimizer", "iterations", "epochs", "order", "log", "checkpoint", "method", "local_steps", "seed", "accuracy"},
               "train");
    model::TrainSettings t;
    t.loc = loc(train);
    t.loss = scalar(train, "loss", "train");
    t.loss_loc = text_loc(train["loss"]);
    if (const YAML::Node o = train["optimizer"]) t.optimizer = read_update_rule(o);
    if (const YAML::Node a = train["accuracy"]) read_accuracy(a, t, wf);  // before the batches are counted: it holds rows out
    const Index batches = batches_per_epoch(wf);
    for (const auto& d : wf.tensors)
      if (d.batch && d.batch->batches() != batches)
        throw UserError(d.batch->loc, "tensor '" + d.name + "' has " + std::to_string(d.batch->batches()) +
                                          " batches, but other batch tensors have " + std::to_string(batches) +
                                          "; every batch tensor must have the same number");
    const YAML::Node iters = train["iterations"], epochs = train["epochs"];
    if (iters && epochs) fail(epochs, "give 'iterations' or 'epochs', not both");
    if (iters) {
      if (!t.optimizer) fail(iters, "'iterations' needs an 'optimizer' (such as {kind: sgd, lr: 0.1}) to run them with");
      t.iterations = integer(iters, "iterations", 1);
      t.iterations_loc = loc(iters);
    } else if (epochs) {
      if (!t.optimizer) fail(epochs, "'epochs' needs an 'optimizer' (such as {kind: sgd, lr: 0.1}) to run them with");
      t.epochs = integer(epochs, "epochs", 1);
      if (t.epochs > kMaxCount / batches)
        fail(epochs,
             "epochs " + epochs.Scalar() + " of " + std::to_string(batches) + " batch(es) each is more than 2^53 iterations, the most a run counts");
      t.iterations = t.epochs * batches;
      t.iterations_loc = loc(epochs);
    } else if (t.optimizer) {
      fail(train["optimizer"], "an optimizer needs 'iterations' or 'epochs' (how many updates to run)");
    }
    if (const YAML::Node o = train["order"]) read_order(o, t);
    if (const YAML::Node c = train["checkpoint"]) {
      if (!c.IsMap()) fail(c, "'checkpoint' is a mapping {file: ckpt.h5, every: 100}");
      check_keys(c, {"file", "every"}, "checkpoint");
      t.checkpoint_loc = loc(c);
      t.checkpoint_file = scalar(c, "file", "checkpoint");
      check_name_text(c["file"], t.checkpoint_file, "checkpoint file name");
      t.checkpoint_every = c["every"] ? integer(c["every"], "checkpoint every", 1) : t.iterations;
      if (!t.optimizer) fail(c, "'checkpoint' saves a training run; it needs an 'optimizer' and 'iterations'");
    }
    if (const YAML::Node l = train["log"]) {
      if (!l.IsMap()) fail(l, "'log' is a mapping {file: loss.csv}");
      check_keys(l, {"file"}, "log");
      t.log_file = scalar(l, "file", "log");
      check_name_text(l["file"], t.log_file, "log file name");
      t.log_loc = text_loc(l["file"]);
      if (!t.optimizer) fail(l, "'log' records iterations; it needs an 'optimizer' and 'iterations'");
    }
    read_method(train, t);
    wf.train = t;
  }

  // method: synchronous | local_sgd | ist, with local_steps: J and (ist)
  // seed: S. Which graphs IST can cut is the planner's check
  // (model/hidden_layers.hpp).
  void read_method(const YAML::Node& train, model::TrainSettings& t) const {
    const YAML::Node m = train["method"], steps = train["local_steps"], seed = train["seed"];
    const std::string method = m ? scalar(train, "method", "train") : "synchronous";
    if (m) t.method_loc = text_loc(m);
    if (method == "local_sgd") t.method = model::TrainSettings::Method::LocalSgd;
    else if (method == "ist") t.method = model::TrainSettings::Method::Ist;
    else if (method != "synchronous") fail(m, "unknown method '" + method + "'; expected synchronous, local_sgd or ist");
    if (!t.by_rounds()) {
      if (steps) fail(steps, "'local_steps' counts the steps a rank takes alone, under method local_sgd or ist; this run is synchronous");
      if (seed) fail(seed, "'seed' draws IST's neuron assignments (method: ist); the batch order's seed is order: {kind: shuffled, seed: S}");
      return;
    }
    if (!t.optimizer) fail(m, "method " + method + " trains in rounds of local steps; it needs an 'optimizer' and 'iterations'");
    if (!steps) fail(m, "method " + method + " needs 'local_steps' (the steps each rank takes alone between two synchronizations)");
    t.local_steps = integer(steps, "local_steps", 1);
    if (seed) {
      if (t.method != model::TrainSettings::Method::Ist) fail(seed, "'seed' draws IST's neuron assignments; method local_sgd draws none");
      t.subnet_seed = seed_value(seed, "seed");
    }
    // Checkpoints hold the whole network, which exists between rounds only.
    if (const YAML::Node c = train["checkpoint"])
      if (t.checkpoint_every % t.local_steps != 0 && t.checkpoint_every != t.iterations)
        fail(c["every"] ? c["every"] : c, "a run by rounds (method " + method + ") checkpoints between rounds: 'every' (" +
                                              std::to_string(t.checkpoint_every) + ") must be a multiple of local_steps (" +
                                              std::to_string(t.local_steps) + ")");
  }

  // accuracy: {predictions: S, targets: T, held_out: N, every: K}
  void read_accuracy(const YAML::Node& a, model::TrainSettings& t, Workflow& wf) const {
    if (!a.IsMap()) fail(a, "'accuracy' is a mapping {predictions: S, targets: T, held_out: 1000, every: 10}");
    check_keys(a, {"predictions", "targets", "held_out", "every"}, "accuracy");
    if (!t.optimizer) fail(a, "'accuracy' is measured as a run trains; it needs an 'optimizer' and 'iterations'");
    model::TrainSettings::Accuracy acc;
    acc.loc = loc(a);
    acc.predictions = scalar(a, "predictions", "accuracy");
    acc.predictions_loc = text_loc(a["predictions"]);
    acc.targets = scalar(a, "targets", "accuracy");
    if (!a["held_out"]) fail(a, "accuracy needs 'held_out' (the rows of the data kept out of training to measure it on)");
    acc.held_out = integer(a["held_out"], "held_out", 1);
    acc.every = a["every"] ? integer(a["every"], "accuracy every", 1) : 1;
    const model::TensorDecl* targets = wf.find_tensor(acc.targets);
    if (!targets || !targets->batch)
      fail(a["targets"], "accuracy targets '" + acc.targets + "' must be a batch tensor (the data's one-hot or scored classes, batch: {...})");
    for (auto& d : wf.tensors) {
      if (!d.batch) continue;
      if (!std::holds_alternative<model::Hdf5Source>(d.source))
        fail(a, "accuracy holds out rows of HDF5 datasets; batch tensor '" + d.name + "' is an index list, whose rows it cannot hold out yet");
      const Index left = d.batch->rows - acc.held_out;
      if (left < d.batch->size || left % d.batch->size != 0)
        fail(a["held_out"], "held_out " + std::to_string(acc.held_out) + " leaves tensor '" + d.name + "' " +
                                std::to_string(std::max<Index>(0, left)) + " rows to train on, " +
                                (left < d.batch->size ? "less than one batch" : "not a whole number of batches") + " of " +
                                std::to_string(d.batch->size));
      d.batch->held_out = acc.held_out;
    }
    t.accuracy = acc;
  }

  // order: sequential | shuffled | {kind: shuffled, seed: S}
  void read_order(const YAML::Node& o, model::TrainSettings& t) const {
    t.order_loc = loc(o);
    std::string kind;
    if (o.IsScalar()) {
      kind = o.as<std::string>();
    } else if (o.IsMap()) {
      check_keys(o, {"kind", "seed"}, "order");
      kind = scalar(o, "kind", "order");
      if (const YAML::Node s = o["seed"]) {
        if (kind != "shuffled") fail(s, "'seed' chooses a shuffled order; a " + kind + " order has none");
        t.seed = seed_value(s, "seed");
      }
    } else {
      fail(o, "'order' is sequential, shuffled, or {kind: shuffled, seed: 7}");
    }
    if (kind == "sequential") t.order = model::TrainSettings::Order::Sequential;
    else if (kind == "shuffled") t.order = model::TrainSettings::Order::Shuffled;
    else fail(o.IsMap() ? o["kind"] : o, "unknown order '" + kind + "'; expected sequential or shuffled");
  }

  model::UpdateRule read_update_rule(const YAML::Node& o) const {
    if (!o.IsMap()) fail(o, "'optimizer' is a mapping such as {kind: sgd, lr: 0.1}, {kind: momentum, lr: 0.1, beta: 0.9} or {kind: adam, lr: 0.001}");
    model::UpdateRule r;
    r.loc = loc(o);
    const std::string kind = scalar(o, "kind", "optimizer");
    if (kind == "sgd") {
      check_keys(o, {"kind", "lr"}, "an sgd optimizer");
    } else if (kind == "momentum") {
      check_keys(o, {"kind", "lr", "beta"}, "a momentum optimizer");
      r.kind = model::UpdateRule::Kind::Momentum;
      if (!o["beta"]) fail(o, "a momentum optimizer needs 'beta' (such as 0.9)");
      r.beta = positive_real(o["beta"], "beta", true);
    } else if (kind == "adam") {
      // PyTorch's defaults where a key is left out.
      check_keys(o, {"kind", "lr", "beta1", "beta2", "eps"}, "an adam optimizer");
      r.kind = model::UpdateRule::Kind::Adam;
      r.beta = o["beta1"] ? positive_real(o["beta1"], "beta1", true) : 0.9;
      r.beta2 = o["beta2"] ? positive_real(o["beta2"], "beta2", true) : 0.999;
      r.eps = o["eps"] ? positive_real(o["eps"], "eps", false) : 1e-8;
    } else {
      fail(o["kind"], "unknown optimizer '" + kind + "'; expected sgd, momentum or adam");
    }
    if (!o["lr"]) fail(o, "the optimizer needs 'lr' (the learning rate)");
    r.lr = positive_real(o["lr"], "lr", false);
    return r;
  }
};

}  // namespace

void read_train(const DeckValues& values, const YAML::Node& train, Workflow& wf) { TrainSection(values).read_train(train, wf); }

}  // namespace tra::io::deck
