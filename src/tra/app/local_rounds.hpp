#pragma once
// A training run by rounds (train: method: local_sgd | ist): every rank is a
// site that takes `local_steps` steps alone, with no exchange, on its own
// batches, then the sites synchronize.
//
// - local_sgd: every site trains the whole network; a round ends with the
//   sites' models averaged (every loop-carried tensor, in rank order).
// - ist (Independent Subnet Training, thesis ch. 2, Algorithms 1–2): every
//   hidden layer's neurons are dealt to the sites afresh each round
//   (model/hidden_layers.hpp) and site s trains the subnetwork of its own
//   neurons: the weights whose hidden ends are all at s (1/n of the first
//   and last weight matrices, 1/n² of a hidden-to-hidden one). A tensor
//   with no hidden dimension (the output bias) is trained at every site and
//   averaged. There is no rescaling by n² (§2.1.4); a deck that wants the
//   thesis' normalization writes it in its graph.
//
// The site's step is the deck's own training step with every hidden layer
// n times narrower, planned once for one rank and run on MPI_COMM_SELF: the
// ordinary planned step (forward, backward, update) with nothing to
// exchange. Each rank keeps a copy of the whole network, current where it
// last trained an entry (or everywhere, for the initial values and the
// entries no site has trained yet). A round starts by assembling every
// site's subnetwork from where its entries are: one MPI_Alltoallv of the
// entries whose current value is on another rank (comm/value_exchange.hpp).
// So nothing goes back to a coordinator: the sites receive the floats of
// their subnetworks, §2.1.5's count, of which those already in place do not
// move. After the last round every rank gathers the entries others hold,
// and the whole network is written.
//
// Site s reads, at its j-th step overall, batch (j·n + s) of the deck's
// batch order (model/batch_order.hpp): the sites deal the batches out as
// the neurons are, and one site reads exactly the synchronous run's
// batches. The logged loss is the sites' mean.
//
// A checkpoint holds the whole network after a round, the rounds done and
// the method, assignments' seed and rank count, which a resume must match.
//
// Memory: a rank holds the site's plan and its copy of the network
// (copy_bytes), and run_deck checks both against memory_per_rank beside the
// whole deck's plan.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tra/app/checkpoint.hpp"
#include "tra/app/held_out.hpp"
#include "tra/app/plan_deck.hpp"
#include "tra/app/report.hpp"
#include "tra/app/train_loop.hpp"
#include "tra/comm/communicator.hpp"
#include "tra/exec/executor.hpp"
#include "tra/exec/host_tensor.hpp"
#include "tra/model/hidden_layers.hpp"

namespace tra::app {

struct RoundsPlan {
  std::string method;  // local_sgd or ist
  Index local_steps = 1;  // J
  int sites = 1;
  std::vector<model::HiddenLayer> layers;  // IST's hidden layers (none under local_sgd)
  // A loop-carried tensor (parameter or optimizer state): its whole shape,
  // each dimension's hidden layer (-1: none), its shape at a site.
  struct Carried {
    Shape whole, site;
    std::vector<int> layers;
    bool cut() const;  // has a hidden dimension (else it is averaged)
  };
  std::map<std::string, Carried> carried;
  // Floats per round: the subnetworks' entries the sites assemble (§2.1.5's
  // per-step count × J, with the optimizer's state), and those of the tensors
  // every site trains whole, each site's copy (averaged).
  Index assembled = 0, averaged = 0;
  PlannedDeck site;  // one site's step, for one rank
  std::string text() const;  // what --explain shows
  // What every rank holds beside the site's plan, at most: its copy of the
  // whole network and where each cut entry is current, and the most that a
  // round's start, a round's end or a gather of the network holds besides.
  std::int64_t copy_bytes() const;
};

// The site's deck and its plan. `deck`: the deck as read; `whole`: it
// planned for every rank (its loop-carried tensors, its gradient graph).
// A graph IST cannot cut, a hidden layer that does not split evenly, an
// output of a tensor that is not loop-carried: a UserError at its place.
RoundsPlan plan_rounds(const model::Workflow& deck, const PlannedDeck& whole, const physical::OptimizerOptions& options, int sites);

struct RoundsRun {
  std::unique_ptr<exec::Executor> last;  // this site's executor, after its last step
  std::map<std::string, exec::HostTensor> trained;  // every loop-carried tensor, whole, on every rank
  std::vector<IterationTimes> iterations;  // each step, the slowest site's times
  double seconds = 0;
};

// `whole`: the deck planned for every rank, whose declarations (with the
// optimizer's state) give the starting values.
// `held_out`: where train: accuracy: is measured (null: it is not), at the
// end of the round that holds a due iteration, after the sites' entries are
// gathered on every rank (floats the log's rounds do not count).
// `spare_bytes`: what the site's plan leaves free under the memory bound,
// where a site keeps the batches it read if they fit.
// `resume`: the state after a round to start from (done = 0: the deck's
// sources); checkpoints (files.checkpoint) are written after the rounds
// that hold a due iteration (the deck reader makes `every` whole rounds).
RoundsRun run_rounds(const RoundsPlan& plan, const PlannedDeck& whole, const comm::Communicator& c, bool analyze, const TrainFiles& files,
                     Checkpoint resume, const std::function<void()>& check_files, std::int64_t spare_bytes, HeldOut* held_out = nullptr);

}  // namespace tra::app
