/*===- cycle-model.c - Cortex-M4/M7 cycle estimates of Thumb instructions -===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * See cycle-model.h. The decoder follows the Thumb encoding tables of the
 * ARMv7-M Architecture Reference Manual (A5.2 16-bit, A5.3 32-bit, A6.4
 * floating-point); the costs are the table of docs/CortexM.md, "Cycles per
 * inference", whose entries cite the Cortex-M4 Technical Reference Manual
 * (section 3.3 "Instruction set summary", 3.3.2 "Load/store timings",
 * 7.2.3 "FPU instruction set") and state the assumptions made for
 * Cortex-M7, whose manual publishes no timings.
 *
 *===----------------------------------------------------------------------===*/

#include "cycle-model.h"

static unsigned popcount(uint32_t x) {
  unsigned n = 0;
  for (; x; x &= x - 1)
    ++n;
  return n;
}

static CycleInsn make(CycleClass cls, size_t size) {
  CycleInsn insn = {cls, (uint8_t)size, 0,     false, false, -1, -1,
                    -1,  0xFFFF,        0xFFFF};
  return insn;
}

/// Bit \p r, none for -1.
static uint16_t reg(int r) { return r < 0 ? 0 : (uint16_t)(1u << r); }

/// \p insn with the registers it reads and writes.
static CycleInsn uses(CycleInsn insn, uint16_t reads, uint16_t writes) {
  insn.reads = reads;
  insn.writes = writes;
  return insn;
}

/// A single load or store with its registers.
static CycleInsn memory(CycleClass cls, size_t size, int rt, int rn, int rm) {
  CycleInsn insn = make(cls, size);
  insn.rn = (int8_t)rn;
  insn.rm = (int8_t)rm;
  insn.reads = reg(rn) | reg(rm) | (cls == CLS_LOAD ? 0 : reg(rt));
  insn.writes = cls == CLS_LOAD ? reg(rt) : 0;
  if (cls == CLS_LOAD) {
    insn.rt = (int8_t)rt;
    if (rt == 15) {
      insn.writesPc = insn.loadsPc = true;
      insn.rt = -1;
    }
  }
  return insn;
}

static CycleInsn decode16(uint32_t hw) {
  int lo = hw & 7, mid = (hw >> 3) & 7, hi8 = (hw >> 8) & 7;
  /* A5.2.1 shift, add, subtract, move, compare: 00xxxx. */
  if ((hw & 0xC000) == 0x0000) {
    CycleInsn insn = make(CLS_ALU, 2);
    if ((hw & 0x2000) == 0) { /* shifts, ADD/SUB register or imm3 */
      uint16_t reads = reg(mid);
      if ((hw & 0x1C00) == 0x1800) /* register form: Rm */
        reads |= reg((hw >> 6) & 7);
      return uses(insn, reads, reg(lo));
    }
    unsigned op = (hw >> 11) & 3; /* MOV, CMP, ADD, SUB imm8 */
    return uses(insn, op == 0 ? 0 : reg(hi8), op == 1 ? 0 : reg(hi8));
  }
  /* A5.2.2 data processing: 010000; MULS is 0100001101; TST, CMP, CMN
     (1000, 1010, 1011) write no register. */
  if ((hw & 0xFC00) == 0x4000) {
    unsigned op = (hw >> 6) & 0xF;
    bool compare = op == 8 || op == 10 || op == 11;
    return uses(make(op == 13 ? CLS_MUL : CLS_ALU, 2), reg(lo) | reg(mid),
                compare ? 0 : reg(lo));
  }
  /* A5.2.3 special data instructions and branch and exchange: 010001. */
  if ((hw & 0xFC00) == 0x4400) {
    unsigned op = (hw >> 8) & 3;
    unsigned rd = ((hw >> 4) & 8) | (hw & 7);
    int rm = (hw >> 3) & 0xF;
    CycleInsn insn =
        uses(make(CLS_ALU, 2), reg(rm) | (op <= 1 ? reg((int)rd) : 0),
             op == 1 || op == 3 ? 0 : reg((int)rd));
    if (op == 3 || (op != 1 && rd == 15)) { /* BX, BLX, ADD/MOV pc */
      insn.cls = CLS_BRANCH;
      insn.writesPc = true;
    }
    return insn;
  }
  /* LDR (literal): 01001. */
  if ((hw & 0xF800) == 0x4800)
    return memory(CLS_LOAD, 2, (hw >> 8) & 7, 15, -1);
  /* A5.2.4 load/store single, register offset: 0101; opB < 3 stores. */
  if ((hw & 0xF000) == 0x5000)
    return memory(((hw >> 9) & 7) < 3 ? CLS_STORE_REG : CLS_LOAD, 2, hw & 7,
                  (hw >> 3) & 7, (hw >> 6) & 7);
  /* STR/LDR(B) and STRH/LDRH, immediate offset: 011 and 1000; bit 11 L. */
  if ((hw & 0xE000) == 0x6000 || (hw & 0xF000) == 0x8000)
    return memory(hw & 0x0800 ? CLS_LOAD : CLS_STORE_IMM, 2, hw & 7,
                  (hw >> 3) & 7, -1);
  /* STR/LDR SP-relative: 1001. */
  if ((hw & 0xF000) == 0x9000)
    return memory(hw & 0x0800 ? CLS_LOAD : CLS_STORE_IMM, 2, (hw >> 8) & 7, 13,
                  -1);
  /* ADR, ADD SP: 1010. */
  if ((hw & 0xF000) == 0xA000)
    return uses(make(CLS_ALU, 2), reg(13), reg(hi8));
  /* A5.2.5 miscellaneous: 1011. */
  if ((hw & 0xF000) == 0xB000) {
    CycleInsn insn = make(CLS_ALU, 2);
    if ((hw & 0xFF00) == 0xB000) /* ADD, SUB SP */
      insn = uses(insn, reg(13), reg(13));
    else if ((hw & 0xFF00) == 0xB200 || (hw & 0xFF00) == 0xBA00)
      insn = uses(insn, reg(mid), reg(lo)); /* extends, REV */
    else if ((hw & 0xFF00) == 0xBF00)
      insn = uses(insn, 0, 0);     /* IT, hints */
    if ((hw & 0xF500) == 0xB100) { /* CBZ, CBNZ */
      insn = uses(insn, reg(lo), 0);
      insn.cls = CLS_BRANCH;
      insn.writesPc = true;
    } else if ((hw & 0xFE00) == 0xB400) { /* PUSH, bit 8 LR */
      insn.cls = CLS_MULTIPLE;
      insn.n = (uint8_t)popcount(hw & 0x1FF);
    } else if ((hw & 0xFE00) == 0xBC00) { /* POP, bit 8 PC */
      insn.cls = CLS_MULTIPLE;
      insn.n = (uint8_t)popcount(hw & 0x1FF);
      insn.writesPc = insn.loadsPc = (hw & 0x100) != 0;
    }
    return insn;
  }
  /* STM, LDM: 1100. */
  if ((hw & 0xF000) == 0xC000) {
    CycleInsn insn = make(CLS_MULTIPLE, 2);
    insn.n = (uint8_t)popcount(hw & 0xFF);
    return insn;
  }
  /* Conditional branch and SVC: 1101 (condition 1110 UDF, 1111 SVC). */
  if ((hw & 0xF000) == 0xD000) {
    CycleInsn insn = uses(make(CLS_ALU, 2), 0, 0);
    if (((hw >> 8) & 0xF) < 0xE) {
      insn.cls = CLS_BRANCH;
      insn.writesPc = true;
    }
    return insn;
  }
  /* B: 11100. */
  if ((hw & 0xF800) == 0xE000) {
    CycleInsn insn = uses(make(CLS_BRANCH, 2), 0, 0);
    insn.writesPc = true;
    return insn;
  }
  return make(CLS_ALU, 2);
}

/// A6.4 floating-point (coprocessors 10 and 11) instructions.
static CycleInsn decodeFp(uint32_t hw1, uint32_t hw2) {
  CycleInsn insn = make(CLS_FP, 4);
  if ((hw1 & 0xFE00) == 0xEC00) { /* A6.5 extension register load/store */
    if ((hw1 & 0x1E0) == 0x040) { /* 64-bit transfers */
      insn.cls = CLS_FP_MOV64;
    } else if ((hw1 & 0x120) == 0x100) { /* P = 1, W = 0: VLDR, VSTR */
      insn.cls = CLS_FP_LOAD;
      insn.n = hw2 & 0x100 ? 2 : 1;
    } else { /* VLDM, VSTM, VPUSH, VPOP: imm8 words */
      insn.cls = CLS_FP_LOAD;
      insn.n = (uint8_t)(hw2 & 0xFF);
    }
    return insn;
  }
  if ((hw1 & 0xFF00) != 0xEE00 || (hw2 & 0x10))
    return insn; /* register transfers (VMOV, VMRS, VMSR) */
  /* A6.4.1 data processing: opc1 is bits 7, 5, 4 of the first halfword. */
  unsigned opc1 = (hw1 >> 4) & 0xB;
  unsigned opc2 = hw1 & 0xF, opc3 = (hw2 >> 6) & 3;
  if (opc1 == 0x0 || opc1 == 0x1 || opc1 == 0x9 || opc1 == 0xA)
    insn.cls = CLS_FP_MAC;
  else if (opc1 == 0x8 || (opc1 == 0xB && opc2 == 1 && opc3 == 3))
    insn.cls = CLS_FP_DIV;
  return insn;
}

static CycleInsn decode32(uint32_t hw1, uint32_t hw2) {
  unsigned rn = hw1 & 0xF, rt = hw2 >> 12;
  /* A5.3.5 load/store multiple: 1110100xx0. */
  if ((hw1 & 0xFE40) == 0xE800) {
    CycleInsn insn = make(CLS_MULTIPLE, 4);
    insn.n = (uint8_t)popcount(hw2 & 0xFFFF);
    insn.writesPc = insn.loadsPc = (hw1 & 0x10) && (hw2 & 0x8000);
    return insn;
  }
  /* A5.3.6 load/store dual or exclusive, table branch: 1110100xx1. */
  if ((hw1 & 0xFE40) == 0xE840) {
    unsigned op1 = (hw1 >> 7) & 3, op2 = (hw1 >> 4) & 3;
    if (op1 == 0 && op2 == 0) /* STREX: pipelined like a load (3.3.2) */
      return memory(CLS_LOAD, 4, (hw2 >> 8) & 0xF, rn, -1);
    if (op1 == 0 && op2 == 1) /* LDREX */
      return memory(CLS_LOAD, 4, rt, rn, -1);
    if (op1 == 1 && op2 == 0) /* STREXB, STREXH */
      return memory(CLS_LOAD, 4, hw2 & 0xF, rn, -1);
    if (op1 == 1 && op2 == 1) {
      if (((hw2 >> 4) & 0xF) <= 1) { /* TBB, TBH */
        CycleInsn insn = make(CLS_TABLE, 4);
        insn.writesPc = true;
        return insn;
      }
      return memory(CLS_LOAD, 4, rt, rn, -1); /* LDREXB, LDREXH */
    }
    return make(CLS_DUAL, 4);
  }
  /* Coprocessor instructions: 111x11. */
  if ((hw1 & 0xEC00) == 0xEC00) {
    if (((hw2 >> 9) & 7) == 5)
      return decodeFp(hw1, hw2);
    return make(CLS_ALU, 4);
  }
  /* Branches and miscellaneous control: 11110 with bit 15 of hw2 set. */
  if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0x8000)) {
    CycleInsn insn = uses(make(CLS_BRANCH, 4), 0, 0);
    insn.writesPc = true;
    /* op1 = x0x with op = 111xxxx: MSR, MRS, hints, barriers. */
    if ((hw2 & 0x5000) == 0 && ((hw1 >> 7) & 7) == 7) {
      insn.cls = CLS_ALU;
      insn.writesPc = false;
    }
    return insn;
  }
  /* A5.3.10 store single: 11111000xxx0. */
  if ((hw1 & 0xFF10) == 0xF800) {
    bool byReg = !(hw1 & 0x80) && ((hw2 >> 6) & 0x3F) == 0;
    CycleInsn insn = memory(byReg ? CLS_STORE_REG : CLS_STORE_IMM, 4, rt, rn,
                            byReg ? (int)(hw2 & 0xF) : -1);
    if (!(hw1 & 0x80) && (hw2 & 0x900) == 0x900) /* imm8 with writeback */
      insn.writes |= reg((int)rn);
    return insn;
  }
  /* A5.3.7-9 loads: 1111100xxxx1; Rt = PC with a byte or halfword is a
     preload hint. */
  if ((hw1 & 0xFE10) == 0xF810) {
    bool byReg = !(hw1 & 0x80) && rn != 15 && ((hw2 >> 6) & 0x3F) == 0;
    bool word = ((hw1 >> 5) & 3) == 2;
    CycleInsn insn = memory(CLS_LOAD, 4, rt == 15 && !word ? -1 : (int)rt, rn,
                            byReg ? (int)(hw2 & 0xF) : -1);
    if (!(hw1 & 0x80) && rn != 15 && (hw2 & 0x900) == 0x900)
      insn.writes |= reg((int)rn); /* imm8 with writeback */
    return insn;
  }
  /* A5.3.16 multiply, multiply accumulate, absolute difference:
     111110110. */
  unsigned rd = (hw2 >> 8) & 0xF, rm = hw2 & 0xF;
  if ((hw1 & 0xFF80) == 0xFB00) /* Ra = 15: no accumulator */
    return uses(make(CLS_MUL, 4),
                reg((int)rn) | reg((int)rm) | (rt == 15 ? 0 : reg((int)rt)),
                reg((int)rd));
  /* A5.3.17 long multiply, long multiply accumulate, divide: 111110111. */
  if ((hw1 & 0xFF80) == 0xFB80) {
    unsigned op1 = (hw1 >> 4) & 7, op2 = (hw2 >> 4) & 0xF;
    /* RdLo, RdHi are read by the accumulating forms: counted always. */
    return uses(
        make((op1 == 1 || op1 == 3) && op2 == 0xF ? CLS_DIV : CLS_MUL, 4),
        reg((int)rn) | reg((int)rm) | reg((int)rt) | reg((int)rd),
        reg((int)rt) | reg((int)rd));
  }
  /* Data processing: modified or plain immediate (11110, bit 15 of hw2
     clear), shifted register (1110101), register (11111010). Rd = 15 is a
     compare; Rn = 15 reads nothing (MOV, MVN). MOVW and MOVT hold an
     immediate in the Rn field; MOVT and BFI also read Rd. */
  uint16_t dest = rd == 15 ? 0 : reg((int)rd);
  uint16_t src = rn == 15 ? 0 : reg((int)rn);
  if ((hw1 & 0xF800) == 0xF000) {
    unsigned op = (hw1 >> 4) & 0x1F;
    bool plain = (hw1 & 0x200) != 0;
    if (plain && (op == 0x04 || op == 0x0C))
      src = 0;
    bool readsRd = plain && (op == 0x0C || op == 0x16);
    return uses(make(CLS_ALU, 4), src | (readsRd ? dest : 0), dest);
  }
  if ((hw1 & 0xFE00) == 0xEA00 || (hw1 & 0xFF00) == 0xFA00)
    return uses(make(CLS_ALU, 4), src | reg((int)rm), dest);
  /* Everything else: data processing (immediate, shifted register,
     register), which is one cycle. */
  return make(CLS_ALU, 4);
}

CycleInsn cycleDecode(const uint8_t *bytes, size_t size) {
  uint32_t hw1 = bytes[0] | (uint32_t)bytes[1] << 8;
  if (size < 4)
    return decode16(hw1);
  return decode32(hw1, bytes[2] | (uint32_t)bytes[3] << 8);
}

unsigned cycleBase(CycleCpu cpu, const CycleInsn *insn) {
  bool m7 = cpu == CYCLE_M7;
  switch (insn->cls) {
  case CLS_ALU:
  case CLS_MUL:
  case CLS_BRANCH:
  case CLS_STORE_IMM:
  case CLS_FP:
    return 1;
  case CLS_DIV:
    return 12;
  case CLS_LOAD:
  case CLS_STORE_REG:
    return m7 && !insn->loadsPc ? 1 : 2;
  case CLS_DUAL:
    return m7 ? 1 : 3;
  case CLS_MULTIPLE:
    return 1 + (m7 ? (insn->n + 1u) / 2 : insn->n);
  case CLS_TABLE:
    return 3;
  case CLS_FP_MAC:
    return 3;
  case CLS_FP_DIV:
    return 14;
  case CLS_FP_MOV64:
    return 2;
  case CLS_FP_LOAD:
    return 1 + insn->n;
  case CLS_COUNT:
    break;
  }
  return 1;
}

static bool isMemory(CycleClass cls) {
  return cls == CLS_LOAD || cls == CLS_STORE_IMM || cls == CLS_STORE_REG;
}

unsigned cyclePairing(CycleCpu cpu, const CycleInsn *prev, bool prevPaired,
                      const CycleInsn *insn) {
  if (cpu == CYCLE_M4) {
    /* 3.3.2: a load or store after a single load (LDR*, LDREX, STREX) whose
       destination it does not use for its address saves a cycle; a store
       with an immediate offset is always one cycle. */
    if (prev->cls != CLS_LOAD || prev->loadsPc || insn->loadsPc)
      return 0;
    if (insn->cls != CLS_LOAD && insn->cls != CLS_STORE_REG)
      return 0;
    if (prev->rt >= 0 && (prev->rt == insn->rn || prev->rt == insn->rm))
      return 0;
    return 1;
  }
  /* M7 (assumption): two adjacent one-cycle integer instructions issue
     together unless both access memory, both multiply or the second reads
     a register the first writes; a branch may be the second of a pair. */
  if (prevPaired || prev->writesPc)
    return 0;
  bool prevSimple =
      prev->cls == CLS_ALU || prev->cls == CLS_MUL || isMemory(prev->cls);
  bool simple = insn->cls == CLS_ALU || insn->cls == CLS_MUL ||
                isMemory(insn->cls) ||
                (insn->cls == CLS_BRANCH && !insn->loadsPc);
  if (!prevSimple || !simple || insn->loadsPc)
    return 0;
  if (isMemory(prev->cls) && isMemory(insn->cls))
    return 0;
  if (prev->cls == CLS_MUL && insn->cls == CLS_MUL)
    return 0;
  if (prev->writes & insn->reads)
    return 0;
  return cycleBase(cpu, insn);
}

unsigned cycleTakenPenalty(CycleCpu cpu, const CycleInsn *insn,
                           uint64_t targetAddr, unsigned targetSize) {
  /* 3.3.2: a load to the PC and a table branch reload the pipeline in
     three cycles. */
  if (insn->loadsPc || insn->cls == CLS_TABLE)
    return 3;
  if (cpu == CYCLE_M7)
    return 1; /* assumption: the branch predictor got it right */
  /* 3.3.1: P is 1 to 3 with the alignment and width of the target: one
     fetch for a 16-bit or word-aligned 32-bit target, two for a 32-bit one
     that straddles a word. */
  return targetSize == 4 && (targetAddr & 2) ? 2 : 1;
}
