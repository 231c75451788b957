/*===- icount-plugin.c - Exact instruction counts from QEMU's TCG ----------===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * A QEMU TCG plugin (built for the host by run_model.py, loaded with
 * `qemu-system-arm -plugin icount-plugin.so,symbols=F,begin=A,end=B,out=O`)
 * that counts the guest instructions executed between two marker
 * addresses, in total and per function of the firmware:
 *
 *   symbols=F  text file, one function a line: `<hex address> <hex size>
 *              <name>` (the firmware's function symbols, from nm);
 *   begin=A    address of the instruction that opens a window;
 *   end=B      address of the instruction that closes it;
 *   out=O      file that gets, for every window k in execution order, the
 *              line `window <k> total <n>` and a line `window <k> <n> <fn>`
 *              for every function that executed n > 0 instructions in it
 *              (`?` for addresses outside every function);
 *   cycles=C   optional, C = m4 or m7: also estimate the cycles of every
 *              window on Cortex-M4 or Cortex-M7 (cycle-model.h) and write
 *              `cycles <k> total <c>` and `cycles <k> <c> <fn>` lines.
 *
 * Every translated instruction gets an inline add of 1 to the counter of
 * the function that contains it, so the counts are exact and independent
 * of how QEMU cuts translation blocks. The marker instructions get a
 * callback that snapshots the counters; a window's count is the difference
 * of its two snapshots: the instructions from the begin marker up to the
 * end marker, one of the two included (the same one for every window). With
 * the firmware's trampoline (icount.c) that is the call instruction plus
 * every instruction of the call.
 *
 * The cycle estimate adds, inline as well, every instruction's cost in the
 * model's table (decoded from its bytes at translation, less what it gains
 * from its predecessor in the same translation block) to its function's
 * cycle counter. What depends on the path taken is charged by a callback at
 * the start of every executed block: if the previous block ended in a
 * branch and this block is not its fall-through, the branch was taken and
 * its function is charged the pipeline refill; if the previous block ended
 * without a branch (QEMU cut it) and this block is its fall-through, the
 * pairing of its last instruction with this block's first is credited.
 *
 * The plugin API is QEMU's documented C API, version 1 (QEMU 4.2 to 8.1);
 * Debian's qemu-system-arm is built with plugin support but ships no
 * header, so the few declarations it needs are written out below.
 *
 *===----------------------------------------------------------------------===*/

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycle-model.h"

/* --- The QEMU plugin API (version 1), as documented in qemu-plugin.h. --- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t {
  const char *target_name;
  struct {
    int min;
    int cur;
  } version;
  bool system_emulation;
  union {
    struct {
      int smp_vcpus;
      int max_vcpus;
    } system;
  };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags {
  QEMU_PLUGIN_CB_NO_REGS,
  QEMU_PLUGIN_CB_R_REGS,
  QEMU_PLUGIN_CB_RW_REGS,
};
enum qemu_plugin_op {
  QEMU_PLUGIN_INLINE_ADD_U64,
};
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
                                               struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
                                            void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
                                          qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags,
                                          void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags,
                                            void *userdata);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* --- The counter. --- */

/// One function of the firmware: [start, start + size).
typedef struct {
  uint64_t start, size;
  char *name;
} Function;

static Function *functions; /* sorted by start */
static size_t numFunctions;
/// counts[i] for functions[i]; counts[numFunctions] for unknown addresses.
static uint64_t *counts;
static uint64_t *snapshot;
static uint64_t beginAddr = UINT64_MAX, endAddr = UINT64_MAX;
static FILE *out;
static unsigned window;
static bool open_; /* a window is open */

/* --- The cycle estimate (cycles=). --- */
static bool estimateCycles;
static CycleCpu cycleCpu;
/// cycles[i] for functions[i]; cycles[numFunctions] for unknown addresses.
static uint64_t *cycles;
static uint64_t *cycleSnapshot;

/// What the block-start callback needs of a translation block.
typedef struct {
  uint64_t start; /* address of its first instruction */
  CycleInsn first, last;
  bool lastPaired;      /* M7: its last instruction issued second in a pair */
  uint64_t fallThrough; /* address after its last instruction */
  size_t firstFn, lastFn;
} Block;
static const Block *previousBlock;

static int byStart(const void *a, const void *b) {
  const Function *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/// Index of the function containing \p addr, or numFunctions.
static size_t functionAt(uint64_t addr) {
  size_t lo = 0, hi = numFunctions;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (functions[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && addr < functions[lo - 1].start + functions[lo - 1].size)
    return lo - 1;
  return numFunctions;
}

static int readSymbols(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "icount-plugin: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 256;
  functions = malloc(cap * sizeof(Function));
  char name[1024];
  uint64_t start, size;
  while (fscanf(f, "%" SCNx64 " %" SCNx64 " %1023s", &start, &size, name) ==
         3) {
    if (numFunctions == cap)
      functions = realloc(functions, (cap *= 2) * sizeof(Function));
    /* Thumb function symbols have bit 0 set. */
    functions[numFunctions++] =
        (Function){start & ~(uint64_t)1, size, strdup(name)};
  }
  fclose(f);
  qsort(functions, numFunctions, sizeof(Function), byStart);
  counts = calloc(numFunctions + 1, sizeof(uint64_t));
  snapshot = calloc(numFunctions + 1, sizeof(uint64_t));
  cycles = calloc(numFunctions + 1, sizeof(uint64_t));
  cycleSnapshot = calloc(numFunctions + 1, sizeof(uint64_t));
  return 0;
}

static void onBegin(unsigned int vcpu, void *data) {
  (void)vcpu;
  (void)data;
  memcpy(snapshot, counts, (numFunctions + 1) * sizeof(uint64_t));
  memcpy(cycleSnapshot, cycles, (numFunctions + 1) * sizeof(uint64_t));
  open_ = true;
}

static void onEnd(unsigned int vcpu, void *data) {
  (void)vcpu;
  (void)data;
  if (!open_)
    return;
  open_ = false;
  uint64_t total = 0;
  for (size_t i = 0; i <= numFunctions; ++i)
    total += counts[i] - snapshot[i];
  fprintf(out, "window %u total %" PRIu64 "\n", window, total);
  for (size_t i = 0; i <= numFunctions; ++i)
    if (counts[i] != snapshot[i])
      fprintf(out, "window %u %" PRIu64 " %s\n", window,
              counts[i] - snapshot[i],
              i < numFunctions ? functions[i].name : "?");
  if (estimateCycles) {
    uint64_t totalCycles = 0;
    for (size_t i = 0; i <= numFunctions; ++i)
      totalCycles += cycles[i] - cycleSnapshot[i];
    fprintf(out, "cycles %u total %" PRIu64 "\n", window, totalCycles);
    for (size_t i = 0; i <= numFunctions; ++i)
      if (cycles[i] != cycleSnapshot[i])
        fprintf(out, "cycles %u %" PRIu64 " %s\n", window,
                cycles[i] - cycleSnapshot[i],
                i < numFunctions ? functions[i].name : "?");
  }
  fflush(out);
  ++window;
}

/// At the start of every executed block: the taken branch or the pairing
/// across a cut between the previous block and this one.
static void onBlock(unsigned int vcpu, void *data) {
  (void)vcpu;
  const Block *block = data, *prev = previousBlock;
  previousBlock = block;
  if (!prev)
    return;
  if (block->start != prev->fallThrough) {
    if (prev->last.writesPc)
      cycles[prev->lastFn] += cycleTakenPenalty(
          cycleCpu, &prev->last, block->start, block->first.size);
    return;
  }
  /* Only M4's pipelined loads: a pair of M7 may not span a cut, since the
     block's first instruction may already pair with its second. */
  if (!prev->last.writesPc && cycleCpu == CYCLE_M4)
    cycles[block->firstFn] -=
        cyclePairing(cycleCpu, &prev->last, prev->lastPaired, &block->first);
}

static void onTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  Block *block = NULL;
  if (estimateCycles && n > 0) {
    /* Kept for as long as QEMU may run the block: never freed. */
    block = calloc(1, sizeof(Block));
    block->start = qemu_plugin_tb_vaddr(tb);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, onBlock, QEMU_PLUGIN_CB_NO_REGS,
                                         block);
  }
  CycleInsn prev;
  bool prevPaired = false;
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint64_t addr = qemu_plugin_insn_vaddr(insn);
    size_t fn = functionAt(addr);
    if (addr == beginAddr)
      qemu_plugin_register_vcpu_insn_exec_cb(insn, onBegin,
                                             QEMU_PLUGIN_CB_NO_REGS, NULL);
    if (addr == endAddr)
      qemu_plugin_register_vcpu_insn_exec_cb(insn, onEnd,
                                             QEMU_PLUGIN_CB_NO_REGS, NULL);
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                               &counts[fn], 1);
    if (!block)
      continue;
    size_t size = qemu_plugin_insn_size(insn);
    CycleInsn cur = cycleDecode(qemu_plugin_insn_data(insn), size);
    unsigned cost = cycleBase(cycleCpu, &cur);
    unsigned saved =
        i > 0 ? cyclePairing(cycleCpu, &prev, prevPaired, &cur) : 0;
    /* On M7 an instruction that saves cycles issued second in a pair. */
    prevPaired = cycleCpu == CYCLE_M7 && saved > 0;
    if (cost > saved)
      qemu_plugin_register_vcpu_insn_exec_inline(
          insn, QEMU_PLUGIN_INLINE_ADD_U64, &cycles[fn], cost - saved);
    if (i == 0) {
      block->first = cur;
      block->firstFn = fn;
    }
    block->last = cur;
    block->lastPaired = prevPaired;
    block->lastFn = fn;
    block->fallThrough = addr + size;
    prev = cur;
  }
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                               int argc, char **argv) {
  (void)info;
  const char *symbols = NULL, *outPath = NULL;
  for (int i = 0; i < argc; ++i) {
    if (!strncmp(argv[i], "symbols=", 8))
      symbols = argv[i] + 8;
    else if (!strncmp(argv[i], "out=", 4))
      outPath = argv[i] + 4;
    else if (!strncmp(argv[i], "begin=", 6))
      beginAddr = strtoull(argv[i] + 6, NULL, 0) & ~(uint64_t)1;
    else if (!strncmp(argv[i], "end=", 4))
      endAddr = strtoull(argv[i] + 4, NULL, 0) & ~(uint64_t)1;
    else if (!strcmp(argv[i], "cycles=m4") || !strcmp(argv[i], "cycles=m7")) {
      estimateCycles = true;
      cycleCpu = argv[i][8] == '4' ? CYCLE_M4 : CYCLE_M7;
    } else {
      fprintf(stderr, "icount-plugin: unknown argument '%s'\n", argv[i]);
      return -1;
    }
  }
  if (!symbols || !outPath || beginAddr == UINT64_MAX ||
      endAddr == UINT64_MAX) {
    fprintf(stderr, "icount-plugin: needs symbols=, begin=, end= and out=\n");
    return -1;
  }
  if (readSymbols(symbols))
    return -1;
  out = fopen(outPath, "w");
  if (!out) {
    fprintf(stderr, "icount-plugin: cannot write %s\n", outPath);
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, onTranslate);
  return 0;
}
