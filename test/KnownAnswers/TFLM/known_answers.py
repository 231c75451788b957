#!/usr/bin/python3
# ===- known_answers.py - TFLite Micro's known answers: inputs and checks -=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# The known answers of answers.json are the output bytes TFLite Micro (host
# build, reference kernels; README.md) computes for every shared .tflite and
# for its softmax-free copy, on fixed inputs that this script defines. It
# makes everything a check needs, deterministically, from ../shared alone:
#
#   strip-softmax IN.tflite OUT.tflite   the softmax-free copy: the final
#       SOFTMAX (and the QUANTIZE after it, if any) is dropped from the
#       operator list and the subgraph's output becomes the softmax's input,
#       the logits. Only the two vectors' entries change, in place.
#   inputs MODEL.tflite INPUT OUT.bin    the raw input bytes of INPUT
#       (seed1, seed2, ramp; see makeInput) in the subgraph's input order.
#   states MODEL.tflite OUT.bin          the variable tensors' initial
#       bytes (stateBytes), in tensor index order.
#   record --tflm-run PROG --shared DIR  runs PROG (tflm-run, README.md) on
#       every case and writes answers.json (how the answers were made).
#   check --tools BIN --shared DIR --work DIR [--qemu] [--import-arg A]...
#         [--compile-arg C]... [--only CASE]... [--cpu CPU]... [--states]
#       imports each model with mem-opt-import (default options plus A),
#       runs it on the host with mem-opt-run on every input, and with --qemu
#       instead compiles it with mem-opt-compile (defaults plus C) and runs
#       it on QEMU's boards of --cpu (default Cortex-M4 and M7) on one input
#       (test/Pipelines/firmware/run_model.py --inputs); every output byte
#       must equal TFLite Micro's (float outputs: within FLOAT_RTOL); with
#       --states, the variable tensors after the call instead. Prints
#       "OK <where> <case> <input>" or "FAIL ...: what differs" per check;
#       exit status 1 on any FAIL.
#
# Variable tensors (keyword_scrambled's SVDF states) start at zero as in
# TFLite Micro, which fills an int8 one with its zero point (the real value
# 0); mem-opt-import turns them into extra arguments and results in tensor
# index order, so mem-opt's inputs are the model's inputs followed by those
# initial states, and its outputs the model's outputs followed by the states
# after the call, which TFLite Micro's answers hold too. On QEMU the compiled
# model keeps them in its state buffer, reset by the header's function
# (run_model.py --reset-state), whose bytes must be these initial states.
#
# ===----------------------------------------------------------------------=== #

import argparse
import json
import os
import random
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "Import", "TFLite"))
import tflite_tensors  # noqa: E402

# Every shared .tflite, relative to ../shared/models/tflite.
MODELS = [
    "hello_world_float.tflite",
    "hello_world_int8.tflite",
    "keyword_scrambled_8bit.tflite",
    "micro_speech_quantized.tflite",
    "person_detect.tflite",
    "mobilenet_v2_quantized_1x3x224x224.tflite",
    "mlperf-tiny/kws_ref_model.tflite",
    "mlperf-tiny/vww_96_int8.tflite",
    "mlperf-tiny/pretrainedResnet_quant.tflite",
    "mlperf-tiny/ad01_int8.tflite",
]
INPUTS = ["seed1", "seed2", "ramp"]
# The cases that run on QEMU: one input each (the host checks all three).
QEMU_INPUT = "seed1"
NOSOFTMAX = ".nosoftmax"


def caseName(model):
    """person_detect.tflite -> person_detect; mlperf-tiny/x.tflite -> x."""
    return os.path.basename(model)[:-len(".tflite")]


def softmaxTail(decoded):
    """Index of the final SOFTMAX if the operators after it are only
    QUANTIZE (keyword_scrambled) and it feeds the graph's one output,
    else None."""
    ops = decoded["ops"]
    for i in range(len(ops) - 1, -1, -1):
        if ops[i]["op"] == "SOFTMAX":
            break
        if ops[i]["op"] != "QUANTIZE":
            return None
    else:
        return None
    chain = ops[i]["outputs"][0]
    for op in ops[i + 1:]:
        if op["inputs"][0] != chain:
            return None
        chain = op["outputs"][0]
    return i if decoded["outputs"] == [chain] else None


def stripSoftmax(src, dst):
    data = bytearray(open(src, "rb").read())
    decoded = tflite_tensors.decode(src)
    index = softmaxTail(decoded)
    if index is None:
        raise SystemExit("error: %s does not end in SOFTMAX" % src)
    logits = decoded["ops"][index]["inputs"][0]
    old = decoded["outputs"][0]
    b = tflite_tensors.Buf(bytes(data))
    model = tflite_tensors.Table(b, b.u32(0))
    sg = model.tables(2)[0]
    start, _ = sg._vec(3)
    struct.pack_into("<I", data, start - 4, index)
    start, _ = sg._vec(2)
    struct.pack_into("<i", data, start, logits)
    # Signature outputs name tensors too (TensorMap.tensor_index, slot 1).
    for sig in model.tables(7):
        for tmap in sig.tables(1):
            p = tmap.field(1)
            if p is not None and b.u32(p) == old:
                struct.pack_into("<I", data, p, logits)
    open(dst, "wb").write(bytes(data))


# Bytes per element and how to pack it, by tflite_tensors' type name.
ELEMENTS = {"i8": (1, "b"), "ui8": (1, "B"), "i16": (2, "h"), "i32": (4, "i"),
            "f32": (4, "f")}


def makeInput(tensor, name):
    """The input tensor's raw bytes. seed1/seed2: each element uniform over
    the whole range of an 8-bit type, over [-2048, 2047] for a 16-bit one
    (keyword_scrambled's features, scale 0.000625: about +-1.3; its whole
    range saturates the logits) and over [0, 2*pi) for floats
    (hello_world's domain), from Python's Mersenne Twister seeded with 1 or
    2 (stable across Python versions for integer seeds). ramp: element i is
    -128 + (3*i mod 256) for 8-bit types (0 + ... for unsigned),
    -2048 + (37*i mod 4096) for 16-bit ones, 0.25 + i for floats."""
    size, fmt = ELEMENTS[tensor["type"]]
    count = tensor["bytes"] // size
    values = []
    if name.startswith("seed"):
        rng = random.Random(int(name[4:]))
        for _ in range(count):
            if fmt == "f":
                values.append(rng.getrandbits(24) / float(1 << 24) * 6.283185)
            elif size == 1:
                v = rng.getrandbits(8)
                values.append(v - 128 if fmt == "b" else v)
            else:
                values.append(rng.getrandbits(12) - 2048)
    elif name == "ramp":
        for i in range(count):
            if fmt == "f":
                values.append(0.25 + i)
            elif size == 1:
                values.append((3 * i) % 256 + (-128 if fmt == "b" else 0))
            else:
                values.append(-2048 + (37 * i) % 4096)
    else:
        raise SystemExit("error: unknown input %s" % name)
    return struct.pack("<%d%s" % (count, fmt), *values)


def modelInputs(path, name):
    decoded = tflite_tensors.decode(path)
    return b"".join(makeInput(decoded["tensors"][t], name)
                    for t in decoded["inputs"])


def stateBytes(path):
    """The variable tensors' initial bytes, in tensor index order, as
    TFLite Micro's ResetVariableTensors sets them: every byte of an int8
    tensor is its zero point (the real value 0), other types are 0."""
    decoded = tflite_tensors.decode(path)
    out = b""
    for t in decoded["tensors"]:
        if t["variable"]:
            fill = t["zero_point"][0] & 0xFF if (
                t["type"] == "i8" and t["zero_point"]) else 0
            out += bytes([fill]) * t["bytes"]
    return out


def cases(shared, work):
    """(case, model path) for every model and softmax-free copy; the copies
    are written to work."""
    out = []
    for model in MODELS:
        path = os.path.join(shared, "models", "tflite", model)
        if not os.path.exists(path):
            raise SystemExit("error: %s is missing" % path)
        out.append((caseName(model), path))
        if softmaxTail(tflite_tensors.decode(path)) is not None:
            copy = os.path.join(work, caseName(model) + NOSOFTMAX + ".tflite")
            stripSoftmax(path, copy)
            out.append((caseName(model) + NOSOFTMAX, copy))
    return out


def run(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True)
    return res.returncode, res.stdout + res.stderr


def record(args):
    os.makedirs(args.work, exist_ok=True)
    answers = {}
    for case, path in cases(args.shared, args.work):
        entry = {}
        for name in INPUTS:
            inp = os.path.join(args.work, "%s.%s.in" % (case, name))
            out = os.path.join(args.work, "%s.%s.out" % (case, name))
            states = os.path.join(args.work, "%s.%s.states" % (case, name))
            open(inp, "wb").write(modelInputs(path, name))
            code, log = run([args.tflm_run, path, inp, out, states])
            if code:
                raise SystemExit("error: tflm-run failed on %s %s\n%s" %
                                 (case, name, log))
            entry[name] = {"outputs": open(out, "rb").read().hex(),
                           "states": open(states, "rb").read().hex()}
            print(case, name, len(open(out, "rb").read()), "output bytes")
        answers[case] = entry
    with open(args.answers, "w") as f:
        json.dump(answers, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


def floatOutputs(path):
    """Whether the model's outputs are float32 (hello_world_float)."""
    decoded = tflite_tensors.decode(path)
    return all(decoded["tensors"][t]["type"] == "f32"
               for t in decoded["outputs"])


# Float outputs (hello_world_float only) compare within this relative
# tolerance: the order of a float sum is no part of TFLite's semantics, and
# mem-opt's differs from TFLite Micro's reference kernel (1 to 11 units in
# the last place on hello_world_float's three inputs).
FLOAT_RTOL = 1e-5


def firstDiff(got, want, floats):
    """None if got equals want (byte for byte; floats within FLOAT_RTOL),
    else what differs."""
    if len(got) != len(want):
        return "%d bytes, expected %d" % (len(got), len(want))
    if floats:
        n = len(want) // 4
        g = struct.unpack("<%df" % n, got)
        w = struct.unpack("<%df" % n, want)
        bad = [i for i in range(n) if not abs(g[i] - w[i]) <=
               FLOAT_RTOL * abs(w[i]) + 1e-6]
        return None if not bad else (
            "%d of %d floats differ (first %d: %r, expected %r)" % (
                len(bad), n, bad[0], g[bad[0]], w[bad[0]]))
    bad = [i for i in range(len(want)) if got[i] != want[i]]
    if not bad:
        return None
    return "%d of %d bytes differ (first at byte %d: %d, expected %d)" % (
        len(bad), len(want), bad[0], got[bad[0]], want[bad[0]])


def pick(raw, outputs, states, want_states):
    """mem-opt's results are the model's outputs and then its variable
    tensors; the part asked for (all of it if the size is wrong, so that
    the comparison reports that)."""
    if len(raw) != outputs + states:
        return raw
    return raw[outputs:] if want_states else raw[:outputs]


def check(args):
    answers = json.load(open(args.answers))
    os.makedirs(args.work, exist_ok=True)
    tools = args.tools
    cpus = args.cpu or ["cortex-m4", "cortex-m7"]
    status = 0
    for case, path in cases(args.shared, args.work):
        if args.only and case not in args.only:
            continue
        if case not in answers:
            print("FAIL %s: no known answer" % case)
            status = 1
            continue
        mlir = os.path.join(args.work, case + ".mlir")
        code, log = run([os.path.join(tools, "mem-opt-import"), path, "-o",
                         mlir] + args.import_arg)
        if code:
            print("FAIL %s: mem-opt-import failed\n%s" % (case, log))
            status = 1
            continue
        states = stateBytes(path)
        floats = floatOutputs(path)
        if args.states and not states:
            continue
        for name in INPUTS:
            known = answers[case][name]
            want = bytes.fromhex(known["outputs"])
            keep = len(want)
            if args.states:
                want = bytes.fromhex(known["states"])
            start = time.time()
            inp = os.path.join(args.work, "%s.%s.in" % (case, name))
            open(inp, "wb").write(modelInputs(path, name) + states)
            if not args.qemu:
                out = os.path.join(args.work, "%s.%s.out" % (case, name))
                code, log = run([os.path.join(tools, "mem-opt-run"), mlir,
                                 "--entry=main", "--inputs=" + inp,
                                 "--outputs=" + out])
                err = ("mem-opt-run failed\n" + log if code else
                       firstDiff(pick(open(out, "rb").read(), keep,
                                      len(states), args.states), want,
                                 floats))
            elif name != QEMU_INPUT:
                continue
            else:
                # run_model.py also compares each board's outputs with
                # mem-opt-run's (floats within its own tolerance).
                work = os.path.join(args.work, "%s.%s" % (case, name))
                code, log = run(["/usr/bin/python3", os.path.join(
                    SRC, "Pipelines", "firmware", "run_model.py"), mlir,
                    "--tools", tools, "--work", work, "--timeout", "300",
                    "--inputs", inp] + (["--reset-state"] if states else []) +
                    ["--cpu=" + cpu for cpu in cpus] +
                    ["--compile-arg=" + a for a in args.compile_arg])
                err = None if code == 0 else "run_model.py:\n" + log.strip()
                for cpu in cpus:
                    out = os.path.join(work, cpu, "out.bin")
                    if err is None:
                        diff = firstDiff(pick(open(out, "rb").read(), keep,
                                              len(states), args.states),
                                         want, floats)
                        err = diff and "%s: %s" % (cpu, diff)
            where = ("qemu" if args.qemu else "host") + (
                " states" if args.states else "")
            if err:
                print("FAIL %s %s %s: %s" % (where, case, name, err))
                status = 1
            else:
                print("OK %s %s %s: %d bytes (%.0f s)" % (
                    where, case, name, len(want), time.time() - start))
            sys.stdout.flush()
    return status


def main():
    ap = argparse.ArgumentParser(
        description="TFLite Micro known answers: inputs, record, check")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("strip-softmax")
    p.add_argument("src")
    p.add_argument("dst")
    p = sub.add_parser("inputs")
    p.add_argument("model")
    p.add_argument("input", choices=INPUTS)
    p.add_argument("out")
    p = sub.add_parser("states")
    p.add_argument("model")
    p.add_argument("out")
    for name in ("record", "check"):
        p = sub.add_parser(name)
        p.add_argument("--shared", required=True)
        p.add_argument("--work", required=True)
        p.add_argument("--answers", default=os.path.join(HERE,
                                                         "answers.json"))
    p = sub.choices["record"]
    p.add_argument("--tflm-run", required=True)
    p = sub.choices["check"]
    p.add_argument("--tools", required=True)
    p.add_argument("--qemu", action="store_true")
    p.add_argument("--import-arg", action="append", default=[])
    p.add_argument("--compile-arg", action="append", default=[])
    p.add_argument("--only", action="append", default=[])
    p.add_argument("--cpu", action="append", default=[],
                   help="with --qemu: the CPUs (default: cortex-m4 and "
                   "cortex-m7)")
    p.add_argument("--states", action="store_true",
                   help="compare the variable tensors after the call "
                   "instead of the outputs (models that have some)")
    args = ap.parse_args()
    if args.cmd == "strip-softmax":
        stripSoftmax(args.src, args.dst)
        return 0
    if args.cmd == "inputs":
        open(args.out, "wb").write(modelInputs(args.model, args.input))
        return 0
    if args.cmd == "states":
        open(args.out, "wb").write(stateBytes(args.model))
        return 0
    return record(args) if args.cmd == "record" else check(args)


if __name__ == "__main__":
    sys.exit(main())
