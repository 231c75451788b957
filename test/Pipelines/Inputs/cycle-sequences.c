/*===- cycle-sequences.c - Hand-counted sequences for the cycle model -----===*
 *
 * Part of the mem-opt project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Firmware for test/Pipelines/qemu-cycles.test: measures five assembly
 * functions with measuredCall() (firmware/icount.h). Their cycles on
 * Cortex-M4 and Cortex-M7 are counted by hand below from the table of
 * docs/CortexM.md, "Cycles per inference"; the test checks that the
 * plugin's estimate equals these counts.
 *
 * Every window holds icountCall's `blx r4` and the function, up to and
 * including its return. The blx is a taken branch to the function's first
 * instruction, 16-bit in every function here: 1 + P = 2 on both (on M7
 * it reads the r4 that icountCall's preceding `ldr r4, [sp, #8]` writes,
 * so the two do not issue together). A return by `bx lr` to icountEnd (a 16-bit pop) is 1 + P = 2
 * on both unless it issues second in a pair on M7 (then P = 1); `pop {..,
 * pc}` is 1 + N + 3 on M4, 1 + ceil(N/2) + 3 on M7. Every function starts
 * word-aligned (.align 2), so the offsets below are the low address bits.
 *
 *===----------------------------------------------------------------------===*/

#include "icount.h"

#include <stdint.h>
#include <stdio.h>

__asm__(".text\n"
        ".syntax unified\n"
        ".thumb\n"

        /* loads(r0 = buffer). M4 (3.3.2: a load after a single load whose
           destination it does not use for its address takes 1; a store
           with an immediate offset is always 1; nothing is pipelined after
           a store):
             blx                       2
             ldr r1, [r0]              2   after a branch
             ldr r2, [r0, #4]          1   pipelined
             ldr r3, [r0, #8]          1   pipelined
             ldr r2, [r0, r3]          2   r3 is the previous destination
             str r2, [r0, #12]         1   immediate offset
             ldr r1, [r0]              2   after a store
             str r1, [r0, r2]          1   register offset after a load
             bx lr                     2
           total 14. M7 (loads and stores 1, no two memory accesses in one
           cycle): blx 2, seven memory instructions 7, bx lr issues with
           the str: 0 + P = 1; total 10. */
        ".align 2\n"
        ".global loads\n"
        ".type loads, %function\n"
        ".thumb_func\n"
        "loads:\n"
        "  ldr r1, [r0]\n"
        "  ldr r2, [r0, #4]\n"
        "  ldr r3, [r0, #8]\n"
        "  ldr r2, [r0, r3]\n"
        "  str r2, [r0, #12]\n"
        "  ldr r1, [r0]\n"
        "  str r1, [r0, r2]\n"
        "  bx lr\n"
        ".size loads, . - loads\n"

        /* mac(r0 = a, r1 = b, r2 = 4 iterations): a multiply-accumulate
           loop, 3 taken and 1 not-taken bne. The loop starts at offset 4,
           word-aligned, with a 32-bit ldr: P = 1.
           M4:  blx 2; push {r4, lr} 1 + 2 = 3; movs 1;
                per iteration ldr r4 2 (after movs or bne), ldr r12 1
                (pipelined), mla 1, subs 1, bne 1 = 6, 4 x 6 = 24;
                3 taken: 3 x P = 3; mov 1; pop {r4, pc} 1 + 2 + 3 = 6;
                total 2 + 3 + 1 + 24 + 3 + 1 + 6 = 40.
           M7:  blx 2; push 1 + 1 = 2; the first iteration runs on from
                movs: movs 1, ldr r4 0 (pairs with movs), ldr r12 1, mla 1
                (reads r12, which the ldr writes), subs 0 (pairs with
                mla), bne 1 (subs issued second) = 4;
                iterations 2-4 start at the branch target: ldr r4 1,
                ldr r12 1, mla 1, subs 0, bne 1 = 4 each, 12;
                3 taken: 3; mov 1; pop 1 + 1 + 3 = 5;
                total 2 + 2 + 4 + 12 + 3 + 1 + 5 = 29. */
        ".align 2\n"
        ".global mac\n"
        ".type mac, %function\n"
        ".thumb_func\n"
        "mac:\n"
        "  push {r4, lr}\n"
        "  movs r3, #0\n"
        "1:\n"
        "  ldr r4, [r0], #4\n"
        "  ldr r12, [r1], #4\n"
        "  mla r3, r4, r12, r3\n"
        "  subs r2, r2, #1\n"
        "  bne 1b\n"
        "  mov r0, r3\n"
        "  pop {r4, pc}\n"
        ".size mac, . - mac\n"

        /* dsp(r0 = buffer): LDM of three registers, SMLAD, a division.
           M4:  blx 2; ldmia 1 + 3 = 4; smlad 1; udiv 12 (the upper bound
                of 2-12); bx lr 2; total 21.
           M7:  blx 2; ldmia 1 + 2 = 3; smlad 1 (no pair after an LDM);
                udiv 12; bx lr 2 (no pair after a division); total 20. */
        ".align 2\n"
        ".global dsp\n"
        ".type dsp, %function\n"
        ".thumb_func\n"
        "dsp:\n"
        "  ldmia r0!, {r1, r2, r3}\n"
        "  smlad r0, r1, r2, r3\n"
        "  udiv r0, r0, r1\n"
        "  bx lr\n"
        ".size dsp, . - dsp\n"

        /* branches(): a loop whose 32-bit target straddles a word (offset
           2: P = 2 on M4), a taken CBZ and a not-taken BEQ.
           M4:  blx 2; movs 1; 3 x (subs.w 1 + bne 1) = 6; 2 taken x P 2
                = 4; cbz 1 + 1 = 2; cmp 1; beq 1; movs 1; bx lr 2;
                total 2 + 1 + 6 + 4 + 2 + 1 + 1 + 1 + 2 = 20.
           M7:  blx 2; movs 1, subs.w 1 (reads the r1 movs writes),
                bne 0 (pairs); iterations 2-3: subs.w 1, bne 0 = 1 each,
                2; 2 taken x 1 = 2; cbz 1 + 1 = 2; cmp 1, beq 0; movs r0
                1; bx lr 0 + 1 (pairs: it reads lr, not r0);
                total 2 + 2 + 2 + 2 + 2 + 1 + 1 + 1 = 13. */
        ".align 2\n"
        ".global branches\n"
        ".type branches, %function\n"
        ".thumb_func\n"
        "branches:\n"
        "  movs r1, #3\n"
        "2:\n"
        "  subs.w r1, r1, #1\n"
        "  bne 2b\n"
        "  cbz r1, 3f\n"
        "  nop\n"
        "3:\n"
        "  cmp r1, #1\n"
        "  beq 4f\n"
        "  movs r0, #7\n"
        "4:\n"
        "  bx lr\n"
        ".size branches, . - branches\n"

        /* fp(r0 = buffer): M4 FPU (TRM 7.2.3): vldr 2 each, vmla 3,
           vdiv 14. M4: blx 2 + 2 + 2 + 3 + 14 + bx lr 2 = 25. M7 (the
           same FPU costs): the same 25. */
        ".align 2\n"
        ".global fp\n"
        ".type fp, %function\n"
        ".thumb_func\n"
        "fp:\n"
        "  vldr s0, [r0]\n"
        "  vldr s1, [r0, #4]\n"
        "  vmla.f32 s2, s0, s1\n"
        "  vdiv.f32 s3, s0, s1\n"
        "  bx lr\n"
        ".size fp, . - fp\n");

void loads(void *, void *, void *, void *);
void mac(void *, void *, void *, void *);
void dsp(void *, void *, void *, void *);
void branches(void *, void *, void *, void *);
void fp(void *, void *, void *, void *);

static uint32_t buffer[8] __attribute__((aligned(8))) = {4, 8, 12, 16,
                                                          20, 24, 28, 32};
static uint32_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};

int main(void) {
  sysTickStart();
  measuredCall("loads", buffer, 0, 0, 0, loads);
  measuredCall("mac", a, b, (void *)4, 0, mac);
  measuredCall("dsp", buffer, 0, 0, 0, dsp);
  measuredCall("branches", 0, 0, 0, 0, branches);
  measuredCall("fp", buffer, 0, 0, 0, fp);
  return 0;
}
