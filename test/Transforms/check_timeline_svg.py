#!/usr/bin/env python3
"""Checks a memory-report format=svg chart against the format=json report.

usage: check_timeline_svg.py CHART.svg REPORT.json [SCHEDULED.mlir]

For every function (chart i is JSON function i) and its first series:
- the bytes plotted at every step, read back from the staircase polyline
  through the y axis (its top tick gives the scale), equal the JSON
  `live_bytes` of that step within the rounding of one printed decimal;
- the peak dot's height, its data-peak-bytes and the legend's bytes equal the
  JSON `peak_bytes`, and the legend names the JSON `peak_op`;
- with SCHEDULED.mlir, the memopt.peak_bytes that memory-schedule recorded
  on the function equals them too.
For every series of every chart, the peak labels lie below the title band
(the title's baseline is y = 24, the plot starts at y = 40), above the x
axis and inside the 800-pixel panel, and no two labels of a chart overlap (12-pixel text at most 7.5 pixels
per character). Prints one OK line, or the mismatches and exits with 1.
"""

import json
import re
import sys
import xml.etree.ElementTree as ET

NS = {"svg": "http://www.w3.org/2000/svg"}
PLOT_LEFT, PLOT_TOP, PLOT_WIDTH, PLOT_HEIGHT = 80.0, 40.0, 700.0, 300.0
PLOT_BOTTOM = PLOT_TOP + PLOT_HEIGHT
PANEL_WIDTH = 800.0
TITLE_BOTTOM = 24 + 4  # baseline plus the descent of 15-pixel text
LABEL_ASCENT, LABEL_DESCENT, CHAR_WIDTH = 12.0, 3.0, 7.5


def series_elements(chart, tag, cls, series):
    return [
        e for e in chart.iter("{%s}%s" % (NS["svg"], tag))
        if e.get("class") == cls and e.get("data-series") == str(series)
    ]


def bytes_at(y, y_top_kib):
    return (PLOT_BOTTOM - y) / PLOT_HEIGHT * y_top_kib * 1024.0


def check_chart(index, chart, function, scheduled_peaks, errors):
    name = function["name"]
    steps = [s["live_bytes"] for s in function["steps"]]
    peak = function["peak_bytes"]
    # y scale: the highest y tick's value is the top of the axis.
    y_top = max(
        float(t.text) for t in chart.iter("{%s}text" % NS["svg"])
        if t.get("class") == "ytick")
    # Half a printed decimal of a pixel, in bytes, plus integer rounding.
    tolerance = 0.05 / PLOT_HEIGHT * y_top * 1024.0 + 0.5
    legend = series_elements(chart, "text", "legend", 0)[0].text
    match = re.search(r"peak (\d+) bytes", legend)
    if not match or int(match.group(1)) != peak:
        errors.append("@%s: legend '%s' does not say peak %d" %
                      (name, legend, peak))
    if function["peak_op"] and "(%s)" % function["peak_op"] not in legend:
        if "..." not in legend:
            errors.append("@%s: legend '%s' does not name the peak op %s" %
                          (name, legend, function["peak_op"]))
    if name in scheduled_peaks and scheduled_peaks[name] != peak:
        errors.append("@%s: memopt.peak_bytes %d != JSON peak %d" %
                      (name, scheduled_peaks[name], peak))
    if not steps:
        return 0
    num_steps = len(steps)
    # The staircase: value of step s is the height of the horizontal segment
    # over the middle of the step.
    polyline = series_elements(chart, "polyline", "timeline", 0)[0]
    points = [tuple(map(float, p.split(",")))
              for p in polyline.get("points").split()]
    for step, expected in enumerate(steps):
        x = PLOT_LEFT + (step + 0.5) * PLOT_WIDTH / num_steps
        ys = [a[1] for a, b in zip(points, points[1:])
              if a[1] == b[1] and min(a[0], b[0]) <= x <= max(a[0], b[0])]
        if len(ys) != 1:
            errors.append("@%s step %d: no single segment at x=%.1f" %
                          (name, step, x))
            continue
        plotted = bytes_at(ys[0], y_top)
        if abs(plotted - expected) > tolerance:
            errors.append("@%s step %d: plotted %.1f bytes, JSON says %d" %
                          (name, step, plotted, expected))
    dot = series_elements(chart, "circle", "peak", 0)[0]
    if int(dot.get("data-peak-bytes")) != peak:
        errors.append("@%s: dot says %s bytes, JSON peak %d" %
                      (name, dot.get("data-peak-bytes"), peak))
    if abs(bytes_at(float(dot.get("cy")), y_top) - peak) > tolerance:
        errors.append("@%s: dot plotted at %.1f bytes, JSON peak %d" %
                      (name, bytes_at(float(dot.get("cy")), y_top), peak))
    return num_steps


def check_labels(index, chart, errors):
    boxes = []
    for label in chart.iter("{%s}text" % NS["svg"]):
        if label.get("class") != "peak-label":
            continue
        x, y = float(label.get("x")), float(label.get("y"))
        width = CHAR_WIDTH * len(label.text)
        left = x - width if label.get("text-anchor") == "end" else x
        box = (left, left + width, y - LABEL_ASCENT, y + LABEL_DESCENT)
        if box[2] <= TITLE_BOTTOM:
            errors.append("chart %d: label '%s' at y=%.1f reaches the title" %
                          (index, label.text, y))
        if box[0] < 0 or box[1] > PANEL_WIDTH:
            errors.append("chart %d: label '%s' leaves the panel" %
                          (index, label.text))
        if box[3] > PLOT_BOTTOM:
            errors.append("chart %d: label '%s' at y=%.1f is below the axis" %
                          (index, label.text, y))
        for other in boxes:
            # Coordinates are printed with one decimal: allow for that.
            if (box[0] < other[1] - 0.1 and other[0] < box[1] - 0.1 and
                    box[2] < other[3] - 0.1 and other[2] < box[3] - 0.1):
                errors.append("chart %d: label '%s' overlaps another" %
                              (index, label.text))
        boxes.append(box)
    return len(boxes)


def main():
    svg_path, json_path = sys.argv[1], sys.argv[2]
    scheduled_peaks = {}
    if len(sys.argv) > 3:
        text = open(sys.argv[3]).read()
        for match in re.finditer(
                r"func\.func @([\w.$-]+)\(.*?\).*?attributes \{(.*?)\}", text):
            peak = re.search(r"memopt\.peak_bytes = (\d+)", match.group(2))
            if peak:
                scheduled_peaks[match.group(1)] = int(peak.group(1))
        if not scheduled_peaks:
            print("FAIL: no memopt.peak_bytes in %s" % sys.argv[3])
            return 1
    charts = [g for g in ET.parse(svg_path).getroot()
              if g.get("class") == "chart"]
    functions = json.load(open(json_path))["functions"]
    errors = []
    if len(charts) != len(functions):
        errors.append("%d charts for %d functions" %
                      (len(charts), len(functions)))
    num_steps = num_labels = 0
    for index, (chart, function) in enumerate(zip(charts, functions)):
        num_steps += check_chart(index, chart, function, scheduled_peaks,
                                 errors)
        num_labels += check_labels(index, chart, errors)
    if errors:
        print("\n".join("FAIL: " + e for e in errors))
        return 1
    print("OK: %d charts, %d steps, %d labels, %d scheduled peaks" %
          (len(charts), num_steps, num_labels, len(scheduled_peaks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
