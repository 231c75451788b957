//===- mem-opt-arena-bench.cpp - Arena placement benchmark ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads buffer-placement instances in MiniMalloc's CSV format
// (`id,lower,upper,size`), places them with greedy-by-size and with mem-opt's
// `best` planner under a capacity, and prints a Markdown table: whether each
// fits, the arena against the liveness lower bound, and the median time over
// --repeat runs. Every plan is checked with isValidPlan; an invalid plan or a
// malformed file makes the tool fail. Speed is measured here, never in tests.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Arena/ArenaPlanner.h"
#include "MemOpt/Support/Version.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>

using namespace mlir;
using namespace mlir::memopt;

static llvm::cl::list<std::string>
    inputFiles(llvm::cl::Positional, llvm::cl::OneOrMore,
               llvm::cl::desc("<instance.csv>..."));
static llvm::cl::opt<unsigned>
    repeat("repeat", llvm::cl::init(5),
           llvm::cl::desc("Runs per algorithm and instance; the median time "
                          "is reported"));
static llvm::cl::opt<int64_t>
    capacity("capacity", llvm::cl::init(1048576),
             llvm::cl::desc("Arena capacity in bytes (0: minimize the arena)"));
static llvm::cl::opt<int64_t>
    alignment("alignment", llvm::cl::init(16),
              llvm::cl::desc("Offset alignment in bytes (a power of two)"));
static llvm::cl::opt<uint64_t>
    timeLimitMs("time-limit-ms", llvm::cl::init(60000),
                llvm::cl::desc("Time limit of one `best` placement"));

/// Returns the median of \p values.
static double median(llvm::SmallVector<double> values) {
  llvm::sort(values);
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// One algorithm's outcome on one instance.
struct Outcome {
  std::optional<ArenaPlan> plan;
  /// Median wall-clock and process CPU time of one run.
  double medianMs = 0, medianCpuMs = 0;
};

/// Runs \p algorithm --repeat times on \p buffers; returns the last plan and
/// the median time.
static Outcome run(llvm::ArrayRef<ArenaBuffer> buffers,
                   PlacementAlgorithm algorithm) {
  PlacementOptions options;
  options.algorithm = algorithm;
  options.alignment = alignment;
  options.capacity = capacity;
  options.timeLimitMs = timeLimitMs;
  Outcome outcome;
  llvm::SmallVector<double> times, cpuTimes;
  for (unsigned i = 0; i < std::max(1u, unsigned(repeat)); ++i) {
    auto begin = std::chrono::steady_clock::now();
    std::clock_t cpuBegin = std::clock();
    outcome.plan = planArena(buffers, options);
    std::clock_t cpuEnd = std::clock();
    auto end = std::chrono::steady_clock::now();
    times.push_back(
        std::chrono::duration<double, std::milli>(end - begin).count());
    cpuTimes.push_back(1000.0 * double(cpuEnd - cpuBegin) / CLOCKS_PER_SEC);
  }
  outcome.medianMs = median(times);
  outcome.medianCpuMs = median(cpuTimes);
  return outcome;
}

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "mem-opt-arena-bench: compare arena placements\n");
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
    llvm::errs() << "mem-opt-arena-bench: --alignment must be a power of two\n";
    return 1;
  }
  if (capacity < 0) {
    llvm::errs() << "mem-opt-arena-bench: --capacity must be >= 0\n";
    return 1;
  }

  llvm::outs() << "| instance | buffers | lower bound | greedy-by-size | fits "
                  "| ms | best | fits | minimal | ms | cpu ms |\n"
               << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  int status = 0;
  unsigned instances = 0, greedyFits = 0, bestFits = 0;
  for (const std::string &file : inputFiles) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
        llvm::MemoryBuffer::getFile(file);
    if (!text) {
      llvm::errs() << file << ": error: " << text.getError().message() << "\n";
      status = 1;
      continue;
    }
    llvm::Expected<llvm::SmallVector<ArenaBuffer>> buffers =
        parseArenaBuffersCsv((*text)->getBuffer());
    if (!buffers) {
      llvm::errs() << file << ": error: " << llvm::toString(buffers.takeError())
                   << "\n";
      status = 1;
      continue;
    }
    ++instances;
    int64_t lower = getLivenessLowerBound(*buffers, alignment);
    Outcome greedy = run(*buffers, PlacementAlgorithm::GreedyBySize);
    Outcome best = run(*buffers, PlacementAlgorithm::Best);
    // The table shows greedy's arena even when it does not fit.
    PlacementOptions unbounded;
    unbounded.algorithm = PlacementAlgorithm::GreedyBySize;
    unbounded.alignment = alignment;
    int64_t greedyArena = planArena(*buffers, unbounded)->arenaSize;

    for (const Outcome *outcome : {&greedy, &best})
      if (outcome->plan && !isValidPlan(*buffers, *outcome->plan, alignment)) {
        llvm::errs() << file << ": error: invalid plan\n";
        status = 1;
      }
    greedyFits += greedy.plan.has_value();
    bestFits += best.plan.has_value();
    llvm::outs() << llvm::formatv(
        "| {0} | {1} | {2} | {3} | {4} | {5:F2} | {6} | {7} | {8} | {9:F2} "
        "| {10:F2} |\n",
        llvm::sys::path::filename(file), buffers->size(), lower, greedyArena,
        greedy.plan ? "yes" : "no", greedy.medianMs,
        best.plan ? std::to_string(best.plan->arenaSize) : std::string("-"),
        best.plan ? "yes" : "no",
        best.plan && best.plan->provenMinimal ? "yes" : "no", best.medianMs,
        best.medianCpuMs);
  }
  llvm::outs() << llvm::formatv(
      "\ncapacity {0}: greedy-by-size fits {1}/{3}, best fits {2}/{3}\n",
      capacity.getValue(), greedyFits, bestFits, instances);
  return status;
}
