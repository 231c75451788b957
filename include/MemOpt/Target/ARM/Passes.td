//===- Passes.td - Arm code generation ---------------------*- tablegen -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares the Cortex-M code generators: the int8 convolution kernels for
// the Armv7E-M DSP extension and for Armv8.1-M MVE, and the DSP kernels'
// zero-point folding. The generated declarations live in Passes.h.inc; the
// generated documentation is build/docs/MemOptARMPasses.md.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TARGET_ARM_PASSES_TD
#define MEMOPT_TARGET_ARM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ArmDspInt8KernelsPass : Pass<"arm-dsp-int8-kernels", "func::FuncOp"> {
  let summary = "Lower int8 convolutions on memrefs to Armv7E-M DSP kernels";
  let description = [{
    Replaces every bufferized `linalg.conv_2d_nhwc_fhwc[_q]` and
    `linalg.depthwise_conv_2d_nhwc_hwc[_q]` (int8 input and filter, int32
    accumulator, constant zero points; the plain ops have none) by loops
    that use the DSP extension
    of Armv7E-M through LLVM's ARM intrinsics: `SXTB16` widens four int8
    values into two pairs of halfwords, `SADD16` subtracts the zero points
    from both halves, `SMLAD` does two multiply-accumulates of a
    convolution's reduction and `SMLABB`/`SMLATT` one per channel of a
    depthwise convolution; `linalg.conv_2d_nhwc_hwcf[_q]` (a first layer,
    or a depthwise convolution of one input channel) widens four output
    channels from one filter word and uses `SMLABB`/`SMLABT`. The 64-bit
    rounding multiply of a lowered `tosa.rescale` whose shifts are constants
    in [32, 62] becomes one `SMULL` and 32-bit shifts (exact, see
    RescaleTo32Bit). A convolution keeps `oc-block` output channels
    in registers over one widened input word; channels or input channels
    that are not a multiple of the block or of 4 are computed by scalar
    tails. The accumulator stays in a register over the whole reduction.

    The result is bit-exact with the linalg op: every product of two
    zero-point-corrected int8 values fits in 16x16 bits and the int32 sums
    wrap as the op's do. The kernels read their operands in place through
    unaligned 32-bit loads and need no scratch memory, so the arena the
    memory model predicted is unchanged. The output is only valid for a
    target with the DSP extension (`cortex-m-pipeline` runs the pass for
    cortex-m4 and cortex-m7).

    Before (one pixel of a fused 1x1 convolution, 8 input channels):
    ```mlir
    linalg.conv_2d_nhwc_fhwc_q {...} ins(%x, %w, %c-128_i32, %c0_i32 : ...)
        outs(%acc : memref<1x1x1x4xi32>)
    ```
    After (per block of output channels; %zp is the pair (128, 128)):
    ```mlir
    %r:4 = scf.for %ic = %c0 to %c8 step %c4 iter_args(...) -> (i32, ...) {
      %word = llvm.load %px {alignment = 1 : i64} : !llvm.ptr -> i32
      %e = llvm.call_intrinsic "llvm.arm.sxtb16"(%word) : (i32) -> i32
      %ez = llvm.call_intrinsic "llvm.arm.sadd16"(%e, %zp) : (i32, i32) -> i32
      ...
      %a = llvm.call_intrinsic "llvm.arm.smlad"(%ez, %we, %acc0)
          : (i32, i32, i32) -> i32
      ...
    }
    memref.store %r#0, %acc[%c0, %c0, %c0, %oc] : memref<1x1x1x4xi32>
    ```
  }];
  let options = [
    Option<"ocBlock", "oc-block", "unsigned", /*default=*/"4",
           "Output channels of a convolution computed together over one "
           "widened input word (1 to 8)">,
    Option<"unroll", "unroll", "unsigned", /*default=*/"0",
           "LLVM's unroll count of a convolution's SIMD reduction loop "
           "(llvm.loop.unroll.count, honoured at -Os too); 0 or 1: none">,
    Option<"dualLoads", "dual-loads", "bool", /*default=*/"true",
           "Load the two words of a widened filter (arm-dsp-widen-filters) "
           "as one LDRD; false: two LDRs, which a dual-issue core "
           "(Cortex-M7) pairs with the SMLADs">,
  ];
  let dependentDialects = ["LLVM::LLVMDialect", "scf::SCFDialect",
                           "arith::ArithDialect", "memref::MemRefDialect"];
}

def ArmDspWidenFiltersPass : Pass<"arm-dsp-widen-filters", "ModuleOp"> {
  let summary = "Store int8 convolution filters widened to halfword pairs "
                "for the DSP kernels";
  let description = [{
    For each bufferized `linalg.conv_2d_nhwc_fhwc[_q]` whose filter is a
    constant int8 global (read whole, or a block of its output channels
    through a subview) with input channels a multiple of 4, adds a constant
    copy of the filter minus its zero point as halfwords, each group of four
    input channels `w0 w1 w2 w3` stored as the pairs `(w0, w2), (w1, w3)`
    that `SMLAD` multiplies with the input word's `SXTB16` and
    `SXTB16 ROR #8` (`<filter>_w16`, one per filter and zero point), and
    marks the convolution with it (`memopt.dsp_wide_filter`).
    `arm-dsp-int8-kernels` then loads two filter words per four input
    channels and output channel and widens nothing but the input: 3 instead
    of 5 instructions per output channel and four input channels. A filter
    read for one output pixel (a fully connected layer, whole or as blocks
    of rows) stays int8: each weight is used once, the gain is small for
    twice its flash. Bit-exact
    (the same products). The copy costs flash, twice the filter's bytes; the
    arena does not change. The copies' extra bytes stay within `max-bytes`
    (256 KiB): the filters read for the most output pixels, which gain the
    most per byte, come first. `cortex-m-pipeline` runs it before the kernels
    on cortex-m4 and cortex-m7 with `dsp-wide-filters` (on at the default
    and `--optimize=speed`, off at `--optimize=memory`).
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"262144",
           "Flash budget of the widened copies: the int8 bytes of the "
           "filters widened (each copy adds that many bytes to the object); "
           "the filters read for the most output pixels first">,
  ];
  let statistics = [
    Statistic<"numWidened", "num-widened",
              "Convolutions that read a widened filter">,
    Statistic<"numGlobals", "num-globals", "Widened filter copies added">,
  ];
  let dependentDialects = ["memref::MemRefDialect"];
}

def ArmDspFoldInputZeroPointsPass
    : Pass<"arm-dsp-fold-zero-points", "ModuleOp"> {
  let summary = "Fold the input zero point of int8 convolutions into their "
                "bias";
  let description = [{
    For each bufferized `linalg.conv_2d_nhwc_fhwc_q` with a constant filter
    whose output is initialized, right before it, by a `linalg.generic`
    that copies a constant per-channel bias, rewrites

        sum((x - zi) * (w - zw)) + b  =  sum(x * (w - zw)) + b'

    with `b' = b - zi * sum(w - zw)` per output channel, a new constant
    global (`<bias>_izp`) that the initialization reads instead: the
    convolution gets the input zero point 0. Both sides are equal in int32
    arithmetic (modulo 2^32), so the result is bit-exact. The DSP kernels
    (`arm-dsp-int8-kernels`) then need no `SADD16` per input word, and the
    MVE kernels (`arm-mve-int8-kernels`) no filter sum (`VADDVA.S8`). A
    convolution whose input is a padded window (a buffer filled with the
    zero point, written by `linalg.fill`; the kernels skip its taps outside
    the image) keeps its zero point. The filter and the bias may also be the
    same rows (a `memref.subview` of a block of output channels) of their
    constants, as in the fused fully connected layers of
    `fuse-rescale-accumulators`. Runs before `arm-dsp-int8-kernels` and
    `arm-mve-int8-kernels` in `cortex-m-pipeline`; no activation memory
    changes (the new bias is flash). With `padded-windows` (for the MVE
    kernels, whose `conv_2d_nhwc_fhwc` reads the whole window), a padded
    window's convolution is folded too: its padded taps hold zi, and
    `zi * (w - zw) - zi * (w - zw) = 0` as before.
  }];
  let options = [
    Option<"paddedWindows", "padded-windows", "bool", /*default=*/"false",
           "Also fold convolutions that read a padded window (kernels that "
           "read every tap of the window, not only the image's)">,
  ];
  let statistics = [
    Statistic<"numFolded", "num-folded",
              "Convolutions whose input zero point was folded into the bias">,
  ];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect"];
}

def ArmMveInt8KernelsPass : Pass<"arm-mve-int8-kernels", "func::FuncOp"> {
  let summary = "Lower int8 convolutions on memrefs to Armv8.1-M MVE kernels";
  let description = [{
    Replaces every bufferized `linalg.conv_2d_nhwc_fhwc[_q]` whose input
    channels are contiguous and every `linalg.depthwise_conv_2d_nhwc_hwc[_q]`
    (int8 input and filter, int32
    accumulator, constant zero points; the plain ops have none) by loops on
    vectors that LLVM's ARM backend selects as MVE (Helium) instructions on
    Armv8.1-M (Cortex-M55):

    - convolution: per output pixel and block of `oc-block` output
      channels, sixteen input channels at a time: a `vector<16xi8>` load of
      the input and, per output channel, of the filter, and
      `vector.reduction <add>` of the product of the sign-extended vectors
      (one `VMLAVA.S8`). The input channels left over take one masked load.
      When the taps are contiguous in input and filter (a first layer's
      padded window), the reduction is one run of KH * KW * IC bytes.
      The zero points are applied once per output:
      `sum (x - zx)(w - zw) = sum x w - zx sum w - zw sum x + N zx zw`, with
      `sum w` (`VADDVA.S8`) only when zx is not 0 and `sum x` only when zw is
      not 0.
    - depthwise convolution of at least 4 contiguous channels: eight
      channels at a time (then four, then a masked group of four) as
      `vector<8xi32>`: per tap the sign-extended
      input and filter (`VLDRB.S32`), the zero points added, multiplied and
      added to the accumulator vector, loaded and stored once per pixel.
      Fewer than 4 channels are scalar with the taps unrolled and the
      accumulator in a register.
    - the in-place depthwise convolution's channel loops (one channel of a
      padded KxK window per output pixel, its bias, its rescale to int8;
      `inplace-depthwise`, `fuse-rescale-accumulators`): the rows are split
      into border and interior rows, and the columns whose windows lie
      inside the input become vectors of 4 output pixels of the channel:
      per tap a gather of the 4 input bytes
      (`llvm.arm.mve.vldr.gather.offset`, `VLDRB.S32` with a vector of
      offsets) times the tap's weight (`VMLA.I32` by a scalar), the input
      zero point folded per channel (`sum (x - zx) w = sum x w - zx sum w`,
      added back for a window row outside the input), then the vector
      rescale and a store of 4 bytes. Weights, bias, multiplier and shift
      are read once per channel; the border columns keep their scalar
      loops. The pattern checks, by evaluating the window's index
      computations at every output pixel, that the window copy is exactly
      the window's intersection with the input, and that the output
      channel does not overlap the input. The `linalg.copy` of the
      contiguous channel back over the input's channel (pixels C bytes
      apart) becomes 4 pixels per vector: a load of 4 bytes and a scatter
      store (`llvm.arm.mve.vstr.scatter.offset`, `VSTRB.32` with a vector
      of offsets).
    - `linalg.conv_2d_nhwc_hwcf[_q]` (first layers): a vector of output
      channels of the filter times the zero-point-corrected input value.
    - A padded window (`linalg.fill` with the input zero point, then
      `linalg.copy` of the in-bounds input) that a depthwise or HWCF
      convolution of one output pixel reads: the kernel reads the input
      directly (a padded tap adds `(zp - zp) * w = 0`) and the fill and copy
      go; the window stays allocated, unwritten.
    - The `linalg.generic` of a per-pixel rescale to int8 (the 64-bit
      rounding multiply of `tosa-to-arith`, per channel from constant
      globals or per tensor with constants in its body) over at least 4
      channels whose
      shifts are constants in [32, 62] and multipliers constants other than
      INT32_MIN: 4 channels per vector, with the high words of the product
      from `llvm.arm.mve.vmulh` and `t = P >> 31 = (hi << 1) | (lo >> 31)`,
      `round(P / 2^s) = floor((t + 2^(s - 32)) / 2^(s - 31))`, one rounding
      shift (`VRSHL.S32` by `31 - s` per lane, `llvm.arm.mve.vshl.vector`),
      then the zero point, the clamp and a narrowing store.

    The result is bit-exact with the linalg op: the int32 sums wrap modulo
    2^32 as the op's do, and every product is exact. The kernels read their
    operands in place and need no scratch memory, so the arena the memory
    model predicted is unchanged. The vector ops need
    `convert-vector-to-llvm`; the output is only valid for a target with MVE
    (`cortex-m-pipeline` runs the pass for cortex-m55, option
    `mve-kernels`).

    Before (one pixel of a fused 1x1 convolution, 32 input channels):
    ```mlir
    linalg.conv_2d_nhwc_fhwc_q {...} ins(%x, %w, %c-128_i32, %c0_i32 : ...)
        outs(%acc : memref<1x1x1x8xi32>)
    ```
    After (per output channel of a block; %sw sums the filter for the input
    zero point):
    ```mlir
    %r:8 = scf.for %ic = %c0 to %c32 step %c16 iter_args(...) -> (i32, ...) {
      %xb = llvm.load %px {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
      %x = arith.extsi %xb : vector<16xi8> to vector<16xi32>
      %wb = llvm.load %pw {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
      %w = arith.extsi %wb : vector<16xi8> to vector<16xi32>
      %p = arith.muli %x, %w : vector<16xi32>
      %d = vector.reduction <add>, %p : vector<16xi32> into i32
      %a = arith.addi %acc0, %d : i32
      %s = vector.reduction <add>, %w : vector<16xi32> into i32
      %sw = arith.addi %sw0, %s : i32
      ...
    }
    ```
  }];
  let options = [
    Option<"ocBlock", "oc-block", "unsigned", /*default=*/"4",
           "Output channels of a convolution computed together over one "
           "input vector (1 to 8)">,
  ];
  let dependentDialects = ["LLVM::LLVMDialect", "scf::SCFDialect",
                           "arith::ArithDialect", "memref::MemRefDialect",
                           "vector::VectorDialect"];
}

#endif // MEMOPT_TARGET_ARM_PASSES_TD
