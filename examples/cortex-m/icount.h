/*===- icount.h - Counting the instructions of a call on QEMU -------------===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * measuredCall() calls a function through the trampoline icountCall, whose
 * markers icountBegin and icountEnd delimit the call for
 * test/Pipelines/firmware/icount-plugin.c (a
 * QEMU TCG plugin that counts every instruction between them, in total and
 * per function: the call instruction and every instruction of the call),
 * and reads SysTick on the CPU clock before and after it. Under
 * `qemu-system-arm -icount shift=0` virtual time advances 1 ns per
 * instruction, so on the MPS2 boards (25 MHz) SysTick ticks once every 40
 * instructions. Each measured call prints `ICOUNT <name> systick=<ticks>`.
 *
 * icountCalibrate() measures, as calls named `empty` and `calibration`, an
 * empty function (2 instructions with icountCall's blx) and a loop of
 * ICOUNT_CALIBRATION_ITERATIONS iterations of `subs; bne` (2 * iterations
 * + 2 instructions): test/Pipelines/firmware/run_model.py checks both
 * counters on them. Built with -DICOUNT_NO_SYSTICK (a board without SysTick,
 * such as QEMU's microbit), the calls are made and their ticks are 0.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MEMOPT_FIRMWARE_ICOUNT_H
#define MEMOPT_FIRMWARE_ICOUNT_H

#ifdef __cplusplus
extern "C" {
#endif

#define ICOUNT_CALIBRATION_ITERATIONS 1000000u

/// A function called through measuredCall: up to four arguments in r0-r3.
typedef void (*MeasuredFn)(void *, void *, void *, void *);

/// Starts SysTick (counting down from 2^24 - 1 on the CPU clock, its
/// interrupt counting the wraps: startup.c's sysTickHandler).
void sysTickStart(void);

/// Calls \p fn(a0, a1, a2, a3) through icountCall, prints its SysTick
/// ticks as `ICOUNT <name> systick=<ticks>` and returns them.
unsigned long long measuredCall(const char *name, void *a0, void *a1, void *a2,
                                void *a3, MeasuredFn fn);

/// Starts SysTick and measures the `empty` and `calibration` calls.
void icountCalibrate(void);

#ifdef __cplusplus
}
#endif

#endif // MEMOPT_FIRMWARE_ICOUNT_H
