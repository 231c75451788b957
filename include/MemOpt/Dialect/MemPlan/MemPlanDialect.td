//===- MemPlanDialect.td - memplan dialect definition ------*- tablegen -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `memplan` dialect: a static memory plan written as IR.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_MEMPLAN_MEMPLANDIALECT_TD
#define MEMOPT_DIALECT_MEMPLAN_MEMPLANDIALECT_TD

include "mlir/IR/OpBase.td"

def MemPlan_Dialect : Dialect {
  let name = "memplan";
  let cppNamespace = "::mlir::memplan";
  let summary = "A static memory plan of a function, as IR";
  let description = [{
    The `memplan` dialect writes down where every activation buffer of a
    function lives: one `memplan.arena` declares the function's arena (a
    `memref<Nxi8>` of N bytes with an alignment), and each `memplan.place`
    yields a buffer at a static byte offset in it, together with the steps
    during which the buffer is live.

    The verifier of `memplan.arena` proves the plan safe: every offset is a
    multiple of the arena's alignment, every buffer fits inside the arena, and
    no two buffers whose live ranges meet share a byte.

    `memplan-plan-arena` builds a plan from bufferized IR (replacing
    `memref.alloc` and `memref.alloca`), and `memplan-lower` turns it into
    `memref.view`s of one arena passed as the function's last argument.
    See `docs/ArenaPlan.md`.
  }];
}

/// Base class of memplan operations.
class MemPlan_Op<string mnemonic, list<Trait> traits = []>
    : Op<MemPlan_Dialect, mnemonic, traits>;

#endif // MEMOPT_DIALECT_MEMPLAN_MEMPLANDIALECT_TD
