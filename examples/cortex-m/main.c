/*===- main.c - Run a mem-opt-compiled model on a Cortex-M board ----------===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * The example firmware: places the model's arena (<NAME>_ARENA_SIZE bytes,
 * aligned to <NAME>_ARENA_ALIGN) at the start of the board's activation
 * SRAM, writes every input at its offset in the arena (the bytes of
 * -DINPUT=<file>, or a deterministic test pattern), calls the model once
 * and prints every output (and its dequantized values where the header
 * gives a scale and zero point), then the call's time in SysTick ticks of
 * the CPU clock. Under QEMU with `-icount shift=0` (the `run` target), one
 * instruction takes 1 ns, so the ticks give the instructions executed.
 * Output goes to the host by semihosting.
 *
 *===----------------------------------------------------------------------===*/

#include "icount.h"
#include "model_io.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern uint8_t __sram_start[];
extern uint8_t __sram_end[];

/// Bytes of one element of \p type.
static unsigned elementBytes(unsigned type) {
  static const unsigned bytes[] = {1, 1, 2, 4, 8, 4, 8};
  return bytes[type];
}

/// Writes element \p k of the test pattern, a ramp of 256 values, at \p p.
static void writePattern(uint8_t *p, unsigned type, unsigned k) {
  int v = (int)((k * 7u) % 256u) - 128;
  switch (type) {
  case MODEL_INT8:
    *(int8_t *)p = (int8_t)v;
    break;
  case MODEL_UINT8:
    *p = (uint8_t)(v + 128);
    break;
  case MODEL_INT16:
    *(int16_t *)p = (int16_t)v;
    break;
  case MODEL_INT32:
    *(int32_t *)p = v;
    break;
  case MODEL_INT64:
    *(int64_t *)p = v;
    break;
  case MODEL_FLOAT:
    *(float *)p = (float)v / 64.0f;
    break;
  default:
    *(double *)p = (double)v / 64.0;
    break;
  }
}

/// Element \p k at \p p, as a double.
static double readValue(const uint8_t *p, unsigned type, unsigned k) {
  switch (type) {
  case MODEL_INT8:
    return ((const int8_t *)p)[k];
  case MODEL_UINT8:
    return p[k];
  case MODEL_INT16:
    return ((const int16_t *)p)[k];
  case MODEL_INT32:
    return ((const int32_t *)p)[k];
  case MODEL_INT64:
    return (double)((const int64_t *)p)[k];
  case MODEL_FLOAT:
    return ((const float *)p)[k];
  default:
    return ((const double *)p)[k];
  }
}

static const char *const typeNames[] = {
    "int8_t", "uint8_t", "int16_t", "int32_t", "int64_t", "float", "double"};

int main(void) {
  uintptr_t align = modelArenaAlign ? modelArenaAlign : 16;
  uint8_t *arena =
      (uint8_t *)(((uintptr_t)__sram_start + align - 1) & ~(align - 1));
  if (arena + modelArenaSize > __sram_end) {
    printf("error: the arena of %u bytes does not fit the board's %u bytes "
           "of SRAM\n",
           modelArenaSize, (unsigned)(__sram_end - __sram_start));
    return 1;
  }
  printf("%s: arena %u bytes at %p\n", modelName, modelArenaSize,
         (void *)arena);

  unsigned inputBytes = 0;
  for (unsigned i = 0; i < numModelInputs; ++i)
    inputBytes += modelInputs[i].bytes;
  if (modelInputFileBytes && modelInputFileBytes != inputBytes) {
    printf("error: the input file has %u bytes, the model's inputs %u\n",
           modelInputFileBytes, inputBytes);
    return 1;
  }
  const unsigned char *file = modelInputFile;
  for (unsigned i = 0; i < numModelInputs; ++i) {
    const struct ModelTensor *in = &modelInputs[i];
    if (modelInputFileBytes) {
      memcpy(arena + in->offset, file, in->bytes);
      file += in->bytes;
    } else {
      unsigned size = elementBytes(in->type);
      for (unsigned k = 0; k < in->bytes / size; ++k)
        writePattern(arena + in->offset + k * size, in->type, k);
    }
    printf("input %u: %s %s, %u bytes (%s)\n", i, in->shape,
           typeNames[in->type], in->bytes,
           modelInputFileBytes ? "from the input file" : "test pattern");
  }

  sysTickStart();
  uint64_t ticks = measuredCall("model", arena, 0, 0, 0, (MeasuredFn)modelRun);

  for (unsigned i = 0; i < numModelOutputs; ++i) {
    const struct ModelTensor *out = &modelOutputs[i];
    const uint8_t *data = arena + out->offset;
    unsigned count = out->bytes / elementBytes(out->type);
    printf("output %u: %s %s:", i, out->shape, typeNames[out->type]);
    for (unsigned k = 0; k < count; ++k)
      printf(out->type >= MODEL_FLOAT ? " %.9g" : " %.0f",
             readValue(data, out->type, k));
    printf("\n");
    if (out->scale != 0.0f) {
      printf("output %u dequantized (scale %.9g, zero point %d):", i,
             (double)out->scale, out->zeroPoint);
      for (unsigned k = 0; k < count; ++k)
        printf(" %.6g",
               out->scale * (readValue(data, out->type, k) - out->zeroPoint));
      printf("\n");
    }
  }
#ifdef ICOUNT_NO_SYSTICK
  (void)ticks;
  printf("time: not measured (the board has no SysTick)\n");
#else
  printf("time: %llu SysTick ticks of the %lu Hz CPU clock = %llu "
         "instructions under QEMU -icount shift=0 (1 ns each)\n",
         (unsigned long long)ticks, (unsigned long)CPU_CLOCK_HZ,
         (unsigned long long)(ticks * (1000000000ull / CPU_CLOCK_HZ)));
#endif
  return 0;
}
