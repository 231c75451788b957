#!/usr/bin/env python3
# ===- compile_report_layers.py - Report rows are the model's layers ------===#
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------===#
#
# Checks `mem-opt-compile --report=json` and `--report=csv` of a .tflite
# model against the flatbuffer, decoded independently by
# test/Import/TFLite/tflite_tensors.py, and against `mem-opt --memory-report`:
#
#   - the rows are the model's operators: one row per operator, with its
#     index (`source_index`) and its kind (`kind`, the builtin's name); a
#     RESHAPE may have none: a reshape of a reshape is one view after
#     canonicalize (no bytes, no code), carried by the later operator;
#   - a row's weight bytes are the bytes of the operator's constant input
#     tensors (the flatbuffer's buffers; a tensor shared by two operators
#     counts at the first), but a RESHAPE's shape, which becomes a shape
#     attribute (no flash);
#   - a row's MACs follow from the shapes: CONV_2D out * KH * KW * Cin,
#     DEPTHWISE_CONV_2D out * KH * KW, FULLY_CONNECTED out * K, else 0;
#   - the CSV parses with Python's csv module and says what the JSON says;
#   - memory-report's steps and peak step are the compile report's.
#
# Usage: compile_report_layers.py <model.tflite> <report.json> <report.csv>
#                                 <memory-report.json>
# Prints one line per model and exits 1 on a mismatch.
#
# ===----------------------------------------------------------------------===#
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Import",
                                "TFLite"))
import tflite_tensors  # noqa: E402


def product(values):
    result = 1
    for v in values:
        result *= v
    return result


def expected_layers(model):
    """Per operator: kind, weight bytes and MACs, from the flatbuffer."""
    tensors = model["tensors"]
    seen = set()
    layers = []
    for op in model["ops"]:
        weights = 0
        for i, t in enumerate(op["inputs"]):
            if t < 0 or t in seen or not tensors[t]["data"]:
                continue
            if op["op"] == "RESHAPE" and i == 1:
                continue
            seen.add(t)
            weights += len(tensors[t]["data"])
        out = product(tensors[op["outputs"][0]]["shape"])
        kind = op["op"]
        macs = 0
        if kind in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
            filt = tensors[op["inputs"][1]]["shape"]
            if kind == "CONV_2D":       # [O, KH, KW, I]
                macs = out * filt[1] * filt[2] * filt[3]
            elif kind == "DEPTHWISE_CONV_2D":  # [1, KH, KW, C * M]
                macs = out * filt[1] * filt[2]
            else:                        # [N, K]
                macs = out * filt[1]
        layers.append({"kind": kind, "weight_bytes": weights, "macs": macs})
    return layers


def main():
    model_path, json_path, csv_path, memory_path = sys.argv[1:5]
    name = os.path.basename(model_path)
    errors = []
    model = tflite_tensors.decode(model_path)
    expected = expected_layers(model)
    report = json.load(open(json_path))
    fn = report["functions"][0]
    rows = fn["layers"]

    # One row per operator, in any order of first steps.
    indices = sorted(r["source_index"] for r in rows)
    missing = [i for i in range(len(expected)) if i not in indices
               and expected[i]["kind"] != "RESHAPE"]
    if len(set(indices)) != len(indices) or missing or any(
            i >= len(expected) for i in indices):
        errors.append("rows are operators %s, the model has %d" %
                      (indices, len(expected)))
    for r in rows:
        want = expected[r["source_index"]]
        for key in ("kind", "weight_bytes", "macs"):
            if r[key] != want[key]:
                errors.append("operator %d (%s): %s %s, expected %s" % (
                    r["source_index"], r["name"], key, r[key], want[key]))
    if sum(r["macs"] for r in rows) != fn["macs"]:
        errors.append("rows' MACs do not add up to the function's")

    # The CSV is the JSON's layer table.
    with open(csv_path, newline="") as f:
        table = list(csv.DictReader(f))
    if len(table) != len(rows):
        errors.append("CSV has %d rows, JSON %d" % (len(table), len(rows)))
    for line, r in zip(table, rows):
        same = (line["function"] == fn["name"]
                and int(line["layer"]) == r["layer"]
                and line["name"] == r["name"] and line["kind"] == r["kind"]
                and int(line["source_index"]) == r["source_index"]
                and line["tosa_ops"].split() == r["tosa_ops"]
                and int(line["peak"]) == int(r["layer"] == fn["peak_op"]["layer"]))
        for key in ("first_step", "steps", "live_bytes", "weight_bytes",
                    "macs", "instructions"):
            same = same and int(line[key]) == r[key]
        if not same:
            errors.append("CSV row %s differs from JSON %s" % (line, r))

    # memory-report (canonicalize=true) counts the same steps and peak.
    memory = json.load(open(memory_path))["functions"][0]
    if (len(memory["steps"]) != fn["steps"]
            or memory["peak_step"] != fn["peak_step"]
            or memory["peak_bytes"] != fn["schedule"]["peak_bytes"]):
        errors.append("memory-report: %d steps, peak %d at step %d; compile "
                      "report: %d steps, peak %d at step %d" % (
                          len(memory["steps"]), memory["peak_bytes"],
                          memory["peak_step"], fn["steps"],
                          fn["schedule"]["peak_bytes"], fn["peak_step"]))

    for error in errors:
        print("ERROR %s: %s" % (name, error))
    print("%s: %d layers, %d steps, peak at step %d, %d weight bytes, "
          "%d MACs, %d errors" % (
              name, len(rows), fn["steps"], fn["peak_step"],
              sum(r["weight_bytes"] for r in rows), fn["macs"], len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
