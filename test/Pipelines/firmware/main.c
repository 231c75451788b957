/*===- main.c - Test firmware around a mem-opt-compiled model -------------===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Runs one model on the emulated board and writes its outputs to the host
 * through semihosting. The model gets an arena of exactly <FN>_ARENA_SIZE
 * bytes inside the activation SRAM; every other byte of that SRAM holds a
 * canary that is checked after the run, so a plan that writes outside its
 * arena fails. The generated glue (model_glue.c, written by run_model.py)
 * embeds the inputs and calls the model (through
 * `measuredCall("model", ...)`):
 *
 *   const unsigned modelArenaSize, modelArenaAlign;
 *   void runModel(void *arena);
 *   const unsigned numModelOutputs;
 *   const struct ModelOutput modelOutputs[];
 *
 * The glue calls the model through measuredCall() (below), so that its
 * instructions can be counted; before the model, main() measures an empty
 * call and a calibration loop of known length the same way. Two counters:
 *
 *  - SysTick on the CPU clock, read before and after each measured call.
 *    Under `qemu-system-arm -icount shift=0` virtual time advances 1 ns per
 *    instruction, so on the MPS2 boards (25 MHz) SysTick ticks once every
 *    40 instructions. The firmware prints, for each measured call in order,
 *    `ICOUNT <name> systick=<ticks>` (names: empty, calibration, model).
 *  - icount-plugin.c, a QEMU TCG plugin, counts every instruction between
 *    the markers icountBegin and icountEnd of the trampoline icountCall
 *    (exactly: the call instruction and every instruction of the call),
 *    in total and per function.
 *
 * The calibration loop of ICOUNT_CALIBRATION_ITERATIONS iterations is
 * 2 * iterations + 2 instructions (see icountCalibrationLoop).
 *
 * Exit code 0: ran, canary intact, outputs written; anything else: failure.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <stdio.h>

/// One output buffer of the model.
struct ModelOutput {
  const void *data;
  unsigned bytes;
};

extern const unsigned modelArenaSize;
extern const unsigned modelArenaAlign;
extern const unsigned numModelOutputs;
extern const struct ModelOutput modelOutputs[];
void runModel(void *arena);

/// A function called through measuredCall: up to four arguments in r0-r3.
typedef void (*MeasuredFn)(void *, void *, void *, void *);

/// Calls \p fn(a0, a1, a2, a3) between the markers icountBegin and
/// icountEnd (see icount-plugin.c): `blx` to fn is the instruction at
/// icountBegin, the one after the call is at icountEnd.
void icountCall(void *a0, void *a1, void *a2, void *a3, MeasuredFn fn);
__asm__(".text\n"
        ".syntax unified\n"
        ".thumb\n"
        ".global icountCall\n"
        ".global icountBegin\n"
        ".global icountEnd\n"
        ".type icountCall, %function\n"
        ".thumb_func\n"
        "icountCall:\n"
        "  push {r4, lr}\n"
        "  ldr r4, [sp, #8]\n"
        "icountBegin:\n"
        "  blx r4\n"
        "icountEnd:\n"
        "  pop {r4, pc}\n"
        ".size icountCall, . - icountCall\n"
        "\n"
        /* r0 iterations (at least 1) of two instructions, then the return:
           2 * r0 + 1 instructions, 2 * r0 + 2 with icountCall's blx. */
        ".global icountCalibrationLoop\n"
        ".type icountCalibrationLoop, %function\n"
        ".thumb_func\n"
        "icountCalibrationLoop:\n"
        "1:\n"
        "  subs r0, r0, #1\n"
        "  bne 1b\n"
        "  bx lr\n"
        ".size icountCalibrationLoop, . - icountCalibrationLoop\n"
        "\n"
        ".global icountEmpty\n"
        ".type icountEmpty, %function\n"
        ".thumb_func\n"
        "icountEmpty:\n"
        "  bx lr\n"
        ".size icountEmpty, . - icountEmpty\n");
void icountCalibrationLoop(void *iterations, void *, void *, void *);
void icountEmpty(void *, void *, void *, void *);

#define ICOUNT_CALIBRATION_ITERATIONS 1000000u

/* SysTick (ARMv7-M ARM B3.3), counting down from 2^24 - 1 on the CPU clock;
   its interrupt counts the wraps (startup.c). */
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
extern volatile uint32_t sysTickWraps;

/// SysTick ticks since sysTickStart().
static uint64_t sysTickNow(void) {
  uint32_t wraps, value;
  do {
    wraps = sysTickWraps;
    value = SYST_CVR;
  } while (wraps != sysTickWraps);
  return ((uint64_t)wraps << 24) + (0xFFFFFFu - value);
}

static void sysTickStart(void) {
  SYST_RVR = 0xFFFFFFu;
  SYST_CVR = 0;
  SYST_CSR = 7u; /* enable, interrupt, CPU clock */
}

/// Calls \p fn through icountCall and prints its SysTick ticks as
/// `ICOUNT <name> systick=<ticks>`.
void measuredCall(const char *name, void *a0, void *a1, void *a2, void *a3,
                  MeasuredFn fn) {
  uint64_t start = sysTickNow();
  icountCall(a0, a1, a2, a3, fn);
  uint64_t ticks = sysTickNow() - start;
  printf("ICOUNT %s systick=%llu\n", name, (unsigned long long)ticks);
}

extern uint8_t __sram_start[];
extern uint8_t __sram_end[];

/// Byte of the canary at address \p p: varies with the address so that a
/// shifted copy of the canary is noticed too.
static uint8_t canaryAt(const uint8_t *p) {
  uintptr_t a = (uintptr_t)p;
  return (uint8_t)(0xA5u ^ (a >> 2) ^ (a >> 10));
}

int main(void) {
  sysTickStart();
  measuredCall("empty", 0, 0, 0, 0, icountEmpty);
  measuredCall("calibration", (void *)ICOUNT_CALIBRATION_ITERATIONS, 0, 0, 0,
               icountCalibrationLoop);

  /* The arena starts 4 KiB into the activation SRAM, so there is canary on
     both sides of it. */
  uintptr_t align = modelArenaAlign ? modelArenaAlign : 16;
  uintptr_t base = (uintptr_t)__sram_start + 4096;
  base = (base + align - 1) & ~(align - 1);
  uint8_t *arena = (uint8_t *)base;
  uint8_t *arenaEnd = arena + modelArenaSize;
  if (arenaEnd > __sram_end) {
    printf("FAIL arena of %u bytes does not fit the SRAM\n", modelArenaSize);
    return 2;
  }
  for (uint8_t *p = __sram_start; p < __sram_end; ++p)
    if (p < arena || p >= arenaEnd)
      *p = canaryAt(p);

  runModel(arena);

  unsigned corrupted = 0;
  uint8_t *first = 0;
  for (uint8_t *p = __sram_start; p < __sram_end; ++p) {
    if ((p < arena || p >= arenaEnd) && *p != canaryAt(p)) {
      if (!first)
        first = p;
      ++corrupted;
    }
  }
  if (corrupted) {
    printf("FAIL canary: %u bytes outside the arena were written, first at "
           "arena%+ld\n",
           corrupted, (long)(first - arena));
    return 3;
  }

  FILE *out = fopen("out.bin", "wb");
  if (!out) {
    printf("FAIL cannot open out.bin on the host\n");
    return 4;
  }
  for (unsigned i = 0; i < numModelOutputs; ++i)
    if (fwrite(modelOutputs[i].data, 1, modelOutputs[i].bytes, out) !=
        modelOutputs[i].bytes) {
      printf("FAIL cannot write output %u\n", i);
      return 5;
    }
  fclose(out);
  printf("OK arena=%u canary intact\n", modelArenaSize);
  return 0;
}
