//===- MemoryTimelineSvg.cpp - SVG plot of live bytes per step ------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Writes memory timelines as SVG. Every chart has a fixed geometry: a
// 700 x 300 plot area at (80, 40) inside an 800-pixel-wide panel. Steps run
// along x (step s occupies [s, s + 1)), live KiB along y from 0 to a "nice"
// round top. Each order is a staircase polyline whose vertices sit only
// where its value changes; its peak gets a dot at the middle of the peak
// step, a dashed horizontal line and a label with the op at the peak, and
// the legend below the plot repeats the peak in bytes and KiB. A line equal
// to an earlier one is drawn dashed on top of it (its dot becomes a ring).
// Labels are placed clear of the title band above the plot, of the x axis
// and of each other (by estimated text width). Numbers are printed with one
// decimal, so the bytes depend only on the input.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Report/MemoryTimelineSvg.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Pixel geometry of one chart panel.
struct ChartGeometry {
  static constexpr int width = 800;
  static constexpr int plotLeft = 80;
  static constexpr int plotTop = 40;
  static constexpr int plotWidth = 700;
  static constexpr int plotHeight = 300;
  static constexpr int plotBottom = plotTop + plotHeight;
  static constexpr int legendTop = plotBottom + 58;
  static constexpr int legendRow = 18;

  /// Returns the panel height for \p numSeries legend rows.
  static int height(size_t numSeries) {
    return legendTop + legendRow * static_cast<int>(numSeries) + 8;
  }
};
} // namespace

/// Line colours, one per series (repeated when there are more).
static const char *const seriesColors[] = {"#d62728", "#1f77b4", "#2ca02c",
                                           "#9467bd", "#ff7f0e"};

/// Returns the colour of series \p index.
static StringRef colorOf(size_t index) {
  return seriesColors[index % std::size(seriesColors)];
}

/// Returns a round tick spacing (1, 2 or 5 times a power of ten) that splits
/// [0, \p range] into at most about \p maxTicks intervals.
static double niceTickStep(double range, double maxTicks) {
  if (range <= 0)
    return 1;
  double raw = range / maxTicks;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0})
    if (factor * magnitude >= raw * (1 - 1e-9))
      return factor * magnitude;
  return 10 * magnitude;
}

/// Returns the decimals needed to print multiples of \p tickStep.
static unsigned decimalsFor(double tickStep) {
  if (tickStep >= 1)
    return 0;
  return static_cast<unsigned>(std::ceil(-std::log10(tickStep) - 1e-9));
}

/// Prints \p value with one decimal.
static void printCoord(raw_ostream &os, double value) {
  // Avoid "-0.0" for tiny negative rounding noise.
  if (std::fabs(value) < 0.05)
    value = 0;
  os << llvm::format("%.1f", value);
}

/// Writes \p text with the XML special characters escaped.
static void printEscaped(raw_ostream &os, StringRef text) {
  for (char c : text) {
    switch (c) {
    case '&':
      os << "&amp;";
      break;
    case '<':
      os << "&lt;";
      break;
    case '>':
      os << "&gt;";
      break;
    case '"':
      os << "&quot;";
      break;
    default:
      os << c;
    }
  }
}

/// Prints \p bytes in KiB with two decimals.
static void printKiB(raw_ostream &os, int64_t bytes) {
  os << llvm::format("%.2f", static_cast<double>(bytes) / 1024.0) << " KiB";
}

/// Dash pattern of a series equal to an earlier one.
static constexpr StringLiteral kDuplicateDash = "8 6";
/// Distance of a peak label from its dot, horizontally, and from the dot to
/// the baseline of a label above it.
static constexpr double kLabelGap = 7;
/// Distance from the dot to the baseline of a label below it.
static constexpr double kLabelBelow = 16;
/// Extent of 12-pixel label text above and below its baseline.
static constexpr double kLabelAscent = 12;
static constexpr double kLabelDescent = 3;
/// Space labels keep from the panel's left and right edges.
static constexpr double kPanelMargin = 4;
/// Baseline distance of stacked labels, and how many rows are tried.
static constexpr double kLabelRowHeight = 16;
static constexpr int kMaxLabelRows = 16;
/// Longest op name in a peak label, and in a legend line in all.
static constexpr size_t kMaxLabelOpChars = 40;
static constexpr size_t kMaxLegendChars = 96;
static constexpr size_t kMinOpChars = 16;

namespace {
/// The box a peak label covers, in pixels.
struct LabelBox {
  double left, right, top, bottom;
  /// Baseline of the text.
  double baseline;

  /// Returns true if this box and \p other share any area.
  bool overlaps(const LabelBox &other) const {
    return left < other.right && other.left < right && top < other.bottom &&
           other.top < bottom;
  }
};
} // namespace

/// Returns an upper estimate of the width of \p text in the 12-pixel sans
/// font of the labels (7.5 pixels per character).
static double estimateTextWidth(StringRef text) { return 7.5 * text.size(); }

/// Returns \p name, cut to its last \p maxChars characters after "..."
/// (the end of a model's node path is its most specific part).
static std::string truncateName(StringRef name, size_t maxChars) {
  if (name.size() <= maxChars)
    return name.str();
  return ("..." + name.take_back(maxChars - 3)).str();
}

/// Writes one chart whose top edge is at \p yOffset.
static void writeChart(raw_ostream &os, const TimelineChart &chart,
                       int yOffset) {
  using G = ChartGeometry;
  size_t numSteps = 0;
  int64_t maxBytes = 0;
  for (const TimelineSeries &series : chart.series) {
    numSteps = std::max(numSteps, series.liveBytes.size());
    maxBytes = std::max(maxBytes, series.peakBytes);
  }

  // Axis ranges: x over [0, steps], y over [0, yTop] KiB.
  double xRange = std::max<double>(1, numSteps);
  double xTick = std::max(1.0, niceTickStep(xRange, 10));
  double maxKiB = static_cast<double>(maxBytes) / 1024.0;
  double yTick = niceTickStep(maxKiB, 5);
  double yTop = maxKiB > 0 ? std::ceil(maxKiB / yTick - 1e-9) * yTick : yTick;
  auto xOf = [&](double step) {
    return G::plotLeft + step * G::plotWidth / xRange;
  };
  auto yOf = [&](int64_t bytes) {
    return G::plotBottom -
           static_cast<double>(bytes) / 1024.0 / yTop * G::plotHeight;
  };

  os << "<g class=\"chart\" transform=\"translate(0," << yOffset << ")\">\n";
  os << "<text class=\"title\" x=\"" << G::width / 2
     << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">";
  printEscaped(os, chart.title);
  os << "</text>\n";

  // Grid and y ticks.
  unsigned yDecimals = decimalsFor(yTick);
  unsigned numYTicks = static_cast<unsigned>(std::lround(yTop / yTick));
  for (unsigned i = 0; i <= numYTicks; ++i) {
    double kib = i * yTick;
    double y = G::plotBottom - kib / yTop * G::plotHeight;
    os << "<line class=\"grid\" x1=\"" << G::plotLeft << "\" x2=\""
       << G::plotLeft + G::plotWidth << "\" y1=\"";
    printCoord(os, y);
    os << "\" y2=\"";
    printCoord(os, y);
    os << "\" stroke=\"#dddddd\"/>\n";
    os << "<text class=\"ytick\" x=\"" << G::plotLeft - 6 << "\" y=\"";
    printCoord(os, y + 4);
    os << "\" text-anchor=\"end\">"
       << llvm::format(("%." + std::to_string(yDecimals) + "f").c_str(), kib)
       << "</text>\n";
  }
  // X ticks.
  for (double step = 0; step <= xRange + 1e-9; step += xTick) {
    double x = xOf(step);
    os << "<line class=\"xtickmark\" x1=\"";
    printCoord(os, x);
    os << "\" x2=\"";
    printCoord(os, x);
    os << "\" y1=\"" << G::plotBottom << "\" y2=\"" << G::plotBottom + 4
       << "\" stroke=\"#000000\"/>\n";
    os << "<text class=\"xtick\" x=\"";
    printCoord(os, x);
    os << "\" y=\"" << G::plotBottom + 16 << "\" text-anchor=\"middle\">"
       << static_cast<int64_t>(std::lround(step)) << "</text>\n";
  }
  // Axes and their labels.
  os << "<path class=\"axes\" d=\"M" << G::plotLeft << " " << G::plotTop << " V"
     << G::plotBottom << " H" << G::plotLeft + G::plotWidth
     << "\" fill=\"none\" stroke=\"#000000\"/>\n";
  os << "<text class=\"xlabel\" x=\"" << G::plotLeft + G::plotWidth / 2
     << "\" y=\"" << G::plotBottom + 36
     << "\" text-anchor=\"middle\">step (op index in the order)</text>\n";
  os << "<text class=\"ylabel\" transform=\"translate(22,"
     << G::plotTop + G::plotHeight / 2
     << ") rotate(-90)\" text-anchor=\"middle\">live activation memory "
        "(KiB)</text>\n";

  // A series equal to an earlier one would hide under it: it is drawn
  // dashed, on top, and its peak gets a ring around the shared dot.
  SmallVector<bool> dashed;
  for (size_t index = 0; index < chart.series.size(); ++index) {
    ArrayRef<int64_t> bytes = chart.series[index].liveBytes;
    dashed.push_back(!bytes.empty() &&
                     llvm::any_of(ArrayRef(chart.series).take_front(index),
                                  [&](const TimelineSeries &earlier) {
                                    return ArrayRef(earlier.liveBytes) == bytes;
                                  }));
  }
  // Drawing order: solid lines last series first (so that the first is on
  // top), then the dashed ones.
  SmallVector<size_t> drawOrder;
  for (bool drawDashed : {false, true})
    for (size_t index = chart.series.size(); index-- > 0;)
      if (dashed[index] == drawDashed && !chart.series[index].liveBytes.empty())
        drawOrder.push_back(index);

  // Lines.
  for (size_t index : drawOrder) {
    const TimelineSeries &series = chart.series[index];
    StringRef color = colorOf(index);
    os << "<polyline class=\"timeline\" data-series=\"" << index
       << "\" fill=\"none\" stroke=\"" << color
       << "\" stroke-width=\"2\" stroke-linejoin=\"round\"";
    if (dashed[index])
      os << " stroke-dasharray=\"" << kDuplicateDash << "\"";
    os << " points=\"";
    ArrayRef<int64_t> bytes = series.liveBytes;
    auto point = [&](double step, int64_t value, bool first = false) {
      if (!first)
        os << " ";
      printCoord(os, xOf(step));
      os << ",";
      printCoord(os, yOf(value));
    };
    point(0, bytes[0], /*first=*/true);
    for (size_t step = 1; step < bytes.size(); ++step) {
      if (bytes[step] == bytes[step - 1])
        continue;
      point(step, bytes[step - 1]);
      point(step, bytes[step]);
    }
    point(bytes.size(), bytes.back());
    os << "\"/>\n";
  }

  // Peak markers: dashed level and a dot at the middle of the peak step (a
  // ring for dashed series), each with the peak's bytes and op.
  for (size_t index : drawOrder) {
    const TimelineSeries &series = chart.series[index];
    StringRef color = colorOf(index);
    double y = yOf(series.peakBytes);
    double x = xOf(series.peakStep + 0.5);
    os << "<line class=\"peak-level\" data-series=\"" << index << "\" x1=\""
       << G::plotLeft << "\" x2=\"" << G::plotLeft + G::plotWidth << "\" y1=\"";
    printCoord(os, y);
    os << "\" y2=\"";
    printCoord(os, y);
    os << "\" stroke=\"" << color
       << "\" stroke-dasharray=\"4 3\" stroke-opacity=\"0.6\"/>\n";
    os << "<circle class=\"peak\" data-series=\"" << index
       << "\" data-peak-bytes=\"" << series.peakBytes << "\" cx=\"";
    printCoord(os, x);
    os << "\" cy=\"";
    printCoord(os, y);
    if (dashed[index])
      os << "\" r=\"7\" fill=\"none\" stroke=\"" << color
         << "\" stroke-width=\"2\">";
    else
      os << "\" r=\"4\" fill=\"" << color << "\">";
    os << "<title>";
    printEscaped(os, series.label);
    os << ": peak " << series.peakBytes << " bytes at step " << series.peakStep;
    if (!series.peakOp.empty()) {
      os << " (";
      printEscaped(os, series.peakOp);
      os << ")";
    }
    os << "</title></circle>\n";
  }

  // Peak labels, in series order: each goes at the first free place of a
  // list of candidates (above or below its dot, then further below), never
  // in the title band above the plot, below the x axis, or over an earlier
  // label.
  SmallVector<LabelBox> placed;
  for (auto [index, series] : llvm::enumerate(chart.series)) {
    // A dashed series has the label of the line it equals.
    if (series.liveBytes.empty() || dashed[index])
      continue;
    std::string text;
    llvm::raw_string_ostream textOs(text);
    textOs << "peak ";
    printKiB(textOs, series.peakBytes);
    textOs << " at step " << series.peakStep;
    if (!series.peakOp.empty())
      textOs << " (" << truncateName(series.peakOp, kMaxLabelOpChars) << ")";
    double y = yOf(series.peakBytes);
    double x = xOf(series.peakStep + 0.5);
    double width = estimateTextWidth(text);
    // Right of the dot, or left of it where the text would leave the panel
    // on the right; if it fits neither way, as far right as it fits.
    bool leftOfDot = false;
    double left = x + kLabelGap;
    if (left + width > G::width - kPanelMargin) {
      leftOfDot = x - kLabelGap - width >= kPanelMargin;
      left = leftOfDot ? x - kLabelGap - width
                       : std::max<double>(kPanelMargin,
                                          G::width - kPanelMargin - width);
    }
    // Candidate baselines: the even series prefer above the dot, the odd
    // ones below; then further and further below, then above.
    SmallVector<double> candidates;
    double above = y - kLabelGap, below = y + kLabelBelow;
    if (index % 2 == 0)
      candidates.append({above, below});
    else
      candidates.append({below, above});
    for (int row = 1; row <= kMaxLabelRows; ++row)
      candidates.push_back(below + row * kLabelRowHeight);
    for (int row = 1; row <= kMaxLabelRows; ++row)
      candidates.push_back(above - row * kLabelRowHeight);
    std::optional<LabelBox> chosen;
    for (double baseline : candidates) {
      LabelBox box{left, left + width, baseline - kLabelAscent,
                   baseline + kLabelDescent, baseline};
      if (box.top < G::plotTop || box.bottom > G::plotBottom)
        continue;
      if (llvm::any_of(placed, [&](const LabelBox &other) {
            return box.overlaps(other);
          }))
        continue;
      chosen = box;
      break;
    }
    // Everything taken: stack it below the plot's top edge, still clear of
    // the title.
    if (!chosen)
      chosen = LabelBox{left, left + width, double(G::plotTop),
                        G::plotTop + kLabelAscent + kLabelDescent,
                        G::plotTop + kLabelAscent};
    placed.push_back(*chosen);
    os << "<text class=\"peak-label\" data-series=\"" << index << "\" x=\"";
    printCoord(os, leftOfDot ? x - kLabelGap : left);
    os << "\" y=\"";
    printCoord(os, chosen->baseline);
    os << "\" text-anchor=\"" << (leftOfDot ? "end" : "start") << "\" fill=\""
       << colorOf(index)
       << "\" stroke=\"#ffffff\" stroke-width=\"3\" "
          "paint-order=\"stroke\">";
    printEscaped(os, text);
    os << "</text>\n";
  }

  // Legend.
  for (auto [index, series] : llvm::enumerate(chart.series)) {
    double y = G::legendTop + static_cast<double>(index) * G::legendRow;
    os << "<line class=\"legend-swatch\" x1=\"" << G::plotLeft << "\" x2=\""
       << G::plotLeft + 24 << "\" y1=\"";
    printCoord(os, y - 4);
    os << "\" y2=\"";
    printCoord(os, y - 4);
    os << "\" stroke=\"" << colorOf(index) << "\" stroke-width=\"2\"";
    if (dashed[index])
      os << " stroke-dasharray=\"" << kDuplicateDash << "\"";
    os << "/>\n";
    std::string text;
    llvm::raw_string_ostream textOs(text);
    textOs << series.label << ": peak " << series.peakBytes << " bytes (";
    printKiB(textOs, series.peakBytes);
    textOs << ")";
    if (!series.liveBytes.empty())
      textOs << " at step " << series.peakStep << " of "
             << series.liveBytes.size();
    if (dashed[index]) {
      // Its op is that of the line it equals.
      textOs << ", the same as above";
    } else if (!series.liveBytes.empty() && !series.peakOp.empty()) {
      // The op's name gets what is left of the line.
      size_t used = text.size() + 3;
      size_t room = used < kMaxLegendChars ? kMaxLegendChars - used : 0;
      textOs << " (" << truncateName(series.peakOp, std::max(room, kMinOpChars))
             << ")";
    }
    os << "<text class=\"legend\" data-series=\"" << index << "\" x=\""
       << G::plotLeft + 30 << "\" y=\"";
    printCoord(os, y);
    os << "\">";
    printEscaped(os, text);
    os << "</text>\n";
  }
  os << "</g>\n";
}

void mlir::memopt::writeMemoryTimelineSvg(raw_ostream &os,
                                          ArrayRef<TimelineChart> charts) {
  using G = ChartGeometry;
  int height = 0;
  for (const TimelineChart &chart : charts)
    height += G::height(chart.series.size());
  height = std::max(height, 1);
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << G::width
     << "\" height=\"" << height << "\" viewBox=\"0 0 " << G::width << " "
     << height
     << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
        "font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  int yOffset = 0;
  for (const TimelineChart &chart : charts) {
    writeChart(os, chart, yOffset);
    yOffset += G::height(chart.series.size());
  }
  os << "</svg>\n";
}
