/*===- cycle-model.h - Cortex-M4/M7 cycle estimates of Thumb instructions -===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * A small timing model of Cortex-M4 and Cortex-M7 with zero-wait-state
 * memory, used by icount-plugin.c to estimate the cycles of a measured
 * call. An instruction is decoded from its Thumb/Thumb-2 bytes into a class
 * (cycleDecode); its cost is the class's cost in the model's table
 * (cycleBase), less what it gains from its predecessor in the instruction
 * stream (cyclePairing: pipelined loads on M4, dual issue on M7), plus a
 * pipeline refill when it is a branch that was taken (cycleTakenPenalty).
 * The table, each entry's source and the model's limits are documented in
 * docs/CortexM.md, "Cycles per inference".
 *
 *===----------------------------------------------------------------------===*/

#ifndef MEMOPT_FIRMWARE_CYCLEMODEL_H
#define MEMOPT_FIRMWARE_CYCLEMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The processors modelled.
typedef enum { CYCLE_M4, CYCLE_M7 } CycleCpu;

/// The classes of the timing table.
typedef enum {
  CLS_ALU,       ///< data processing, shifts, extends, bitfields,
                 ///< saturation, SIMD add/sub, IT, hints, MRS/MSR
  CLS_MUL,       ///< every multiply and multiply-accumulate (32 and 64 bit)
  CLS_DIV,       ///< SDIV, UDIV
  CLS_LOAD,      ///< single load (any width), LDREX, STREX, PLD
  CLS_STORE_IMM, ///< single store, immediate offset
  CLS_STORE_REG, ///< single store, register offset
  CLS_DUAL,      ///< LDRD, STRD
  CLS_MULTIPLE,  ///< LDM, STM, PUSH, POP of n registers
  CLS_BRANCH,    ///< B, B<c>, CBZ, CBNZ, BL, BX, BLX, MOV/ADD to PC
  CLS_TABLE,     ///< TBB, TBH
  CLS_FP,        ///< single-cycle FPU instructions (VADD, VMUL, VMOV, ...)
  CLS_FP_MAC,    ///< VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS
  CLS_FP_DIV,    ///< VDIV, VSQRT
  CLS_FP_MOV64,  ///< VMOV between two core registers and a D register
  CLS_FP_LOAD,   ///< VLDR, VSTR, VLDM, VSTM, VPUSH, VPOP of n words
  CLS_COUNT
} CycleClass;

/// One decoded instruction.
typedef struct {
  CycleClass cls;
  uint8_t size;    ///< 2 or 4 bytes
  uint8_t n;       ///< registers or words moved (CLS_MULTIPLE, CLS_FP_LOAD)
  bool writesPc;   ///< a branch: may transfer control elsewhere
  bool loadsPc;    ///< loads the PC from memory (LDR pc, POP {.., pc})
  int8_t rt;       ///< CLS_LOAD's destination register, or -1
  int8_t rn, rm;   ///< a single load or store's address registers, or -1
  uint16_t reads;  ///< core registers read (bit r), all when unknown
  uint16_t writes; ///< core registers written, all when unknown
} CycleInsn;

/// Decodes the instruction of \p size bytes (2 or 4) at \p bytes, as they
/// are in memory (little-endian halfwords).
CycleInsn cycleDecode(const uint8_t *bytes, size_t size);

/// The cycles of \p insn on its own: its class's cost, without pairing
/// with its predecessor and without the refill of a taken branch.
unsigned cycleBase(CycleCpu cpu, const CycleInsn *insn);

/// The cycles \p insn saves because it executes right after \p prev (M4: a
/// load or store pipelined after a single load; M7: dual issue when \p insn
/// reads no register \p prev writes). On M7,
/// \p prevPaired says whether prev itself was issued in the second slot of
/// a pair (it then cannot take \p insn as its partner).
unsigned cyclePairing(CycleCpu cpu, const CycleInsn *prev, bool prevPaired,
                      const CycleInsn *insn);

/// The pipeline refill P of the branch \p insn when it is taken to the
/// instruction of \p targetSize bytes at \p targetAddr.
unsigned cycleTakenPenalty(CycleCpu cpu, const CycleInsn *insn,
                           uint64_t targetAddr, unsigned targetSize);

#endif // MEMOPT_FIRMWARE_CYCLEMODEL_H
