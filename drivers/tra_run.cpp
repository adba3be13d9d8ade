// tra-run: run a TRA workflow deck on MPI ranks.
//
// Exit status: 0 ok, 2 user error (deck, data, options; printed once, by rank 0),
// 1 internal error (printed by the rank that hit it; all ranks are stopped).
#include <mpi.h>
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "tra/app/guarded_main.hpp"
#include "tra/app/run_deck.hpp"
#include "tra/common/allocation.hpp"
#include "tra/common/build_info.hpp"
#include "tra/common/error.hpp"
#include "tra/common/log.hpp"
#include "tra/io/hdf5/handle.hpp"
#include "tra/io/mpi_io_layer.hpp"
#include "tra/io/temp_file_guard.hpp"
#include "tra/model/workflow.hpp"

int main(int argc, char** argv) {
  // A write past ulimit -f fails (and says so) instead of killing the rank;
  // before MPI_Init, whose shared-memory files are the first writes.
  tra::io::ignore_file_size_signal();
  tra::io::prefer_mpi_io_without_helper_files();
  // Under Slurm both streams go to one file: whole lines, so that a progress
  // line on stderr never lands inside a report line on stdout.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  tra::keep_freed_memory();  // after MPI_Init, whose memory hooks set their own
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  tra::Log::rank = rank;

  tra::app::RunOptions opt;
  CLI::App app{"tra-run: run a tensor-relational workflow deck (EinSum graph -> TRA -> IA) on MPI ranks"};
  app.add_option("deck", opt.deck, "the YAML workflow deck")->required();
  std::string explain;
  app.add_flag("--explain{plan}", explain,
               "print the partitioning, the TRA plan, the rules applied, the alternatives considered and the chosen IA plan "
               "with predicted costs; --explain=analyze also runs it and prints predicted against measured floats and time per operator; "
               "--explain=dot prints the chosen IA plan as a Graphviz graph (| dot -Tsvg -o plan.svg) and stops");
  app.add_option("--disable", opt.disable,
                 "switch off an optimizer rule, a join strategy family, a search phase, or eindecomp's check of the baselines' labelings: " +
                     tra::app::disable_names() + "; repeatable");
  // Each of these sets one deck value (sugar for --set, tra::app::kDeckValueOptions).
  const std::string deck_value_help[] = {
      "how every EinSum statement's d is chosen: " + tra::model::partitioner_names() + " (sets run/partitioner)",
      "kernel calls per rank for the partitioner: 1, 2, 4, ... 1024 (sets run/overdecomposition)",
      "force every join with an aggregation to a strategy family: " + tra::app::strategy_names() +
          " (auto: the cheapest; sets run/optimizer/strategy)",
  };
  static_assert(sizeof(deck_value_help) / sizeof(deck_value_help[0]) == std::size(tra::app::kDeckValueOptions), "one help per option");
  for (size_t i = 0; i < std::size(tra::app::kDeckValueOptions); ++i) {
    const std::string option = tra::app::kDeckValueOptions[i].option;
    app.add_option_function<std::string>(
        option, [&opt, option](const std::string& v) { opt.deck_values.emplace_back(option, v); }, deck_value_help[i]);
  }
  app.add_option("--calibration", opt.calibration,
                 "machine rates measured by tra-calibrate (default: the deck's run: optimizer: calibration, else built-in rates)");
  app.add_option("--report", opt.report,
                 "write the run report as JSON to this file (per operator: kind, time, floats, GFLOP/s; totals; the plan choice)");
  app.add_option("--resume", opt.resume, "continue a training run from a checkpoint its deck wrote (train: checkpoint:)");
  app.add_option("--set", opt.set,
                 "replace a deck value: PATH=VALUE, as run/partitioner=sqrt, tensors/X/shape=[4096,512] or params/n=8192; repeatable");
  app.add_flag("--dry-run", opt.dry_run, "plan only: stop before execution, write nothing");
  app.add_option("--output-dir", opt.output_dir, "folder for output files given with relative paths (default: current folder)");
  app.add_flag("-v,--verbose", opt.verbose, "show every operator as it runs");
  app.set_version_flag("--version", tra::version_line("tra-run"), "print the version and the git commit, and exit");
  opt.command_line = tra::app::command_line(argc, argv);
  // `--explain analyze` (a space, as other options take their values) means
  // --explain=analyze; CLI11 would read the mode as the deck.
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i + 1 < args.size(); ++i)
    if (args[i] == "--explain" && (args[i + 1] == "plan" || args[i + 1] == "analyze" || args[i + 1] == "dot")) {
      args[i] += "=" + args[i + 1];
      args.erase(args.begin() + static_cast<long>(i) + 1);
    }
  std::vector<char*> joined;
  for (auto& a : args) joined.push_back(a.data());
  if (const int code = tra::app::parse_command_line(app, static_cast<int>(joined.size()), joined.data(), rank); code >= 0) return code;
  tra::Log::verbose = opt.verbose;
  // CLI11 reads `--explain=` (an empty mode) as a bare --explain.
  const bool empty_explain = std::find(args.begin(), args.end(), "--explain=") != args.end();
  if (app.count("--explain") && (empty_explain || (explain != "plan" && explain != "analyze" && explain != "dot"))) {
    if (rank == 0)
      std::cerr << "tra-run: error: --explain=" << (empty_explain ? "" : explain)
                << ": expected --explain, --explain=plan, --explain=analyze or --explain=dot" << std::endl;
    MPI_Finalize();
    return 2;
  }
  // An option given with an empty value is a mistake, not a request for the default.
  for (const char* name : {"--strategy", "--partitioner", "--calibration", "--output-dir", "--disable", "--report", "--resume", "--set"}) {
    if (!app.count(name)) continue;
    const std::vector<std::string> values = app[name]->as<std::vector<std::string>>();
    if (std::any_of(values.begin(), values.end(), [](const std::string& v) { return v.empty(); })) {
      if (rank == 0) std::cerr << "tra-run: error: " << name << " was given an empty value" << std::endl;
      MPI_Finalize();
      return 2;
    }
  }
  using Explain = tra::app::RunOptions::Explain;
  if (app.count("--explain")) opt.explain = explain == "analyze" ? Explain::Analyze : explain == "dot" ? Explain::Dot : Explain::Plan;

  const int status = tra::app::run_guarded("tra-run", argc, argv, rank, [&] {
    tra::comm::Communicator comm(MPI_COMM_WORLD);
    tra::app::run_deck(opt, comm);
  });
  MPI_Finalize();
  return status;
}
