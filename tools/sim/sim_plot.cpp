#include "tools/sim/sim_plot.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/iso8601.h"
#include "tools/report/svg_text.h"

namespace fairway::simtool {
namespace {

using report::axis_number;
using report::series_color;
using report::svg_escaped;

constexpr int kWidth = 900, kPanelHeight = 300, kLeft = 80, kRight = 210, kTop = 40, kBottom = 50;

std::string number(double value) { return axis_number(value, 2); }

std::string date(std::int64_t t) { return format_iso8601(UnixTime{Seconds{t}}).substr(0, 10); }

struct Panel {
    int top;
    double y_max;
    static int width() { return kWidth - kLeft - kRight; }
    static int height() { return kPanelHeight - kTop - kBottom; }
    int bottom() const { return top + kTop + height(); }
    double x(double fraction) const { return kLeft + fraction * width(); }
    double y(double value) const { return bottom() - height() * (y_max > 0 ? std::min(value / y_max, 1.0) : 0); }
};

void frame(std::ostringstream& svg, const Panel& p, const std::string& title, const std::string& y_label,
           const std::string& x_left, const std::string& x_right) {
    svg << "<text x=\"" << kLeft << "\" y=\"" << p.top + 24 << "\" font-size=\"15\" font-weight=\"bold\">"
        << svg_escaped(title) << "</text>\n";
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << p.bottom() << "\" x2=\"" << kLeft + Panel::width() << "\" y2=\""
        << p.bottom() << "\" stroke=\"#333\"/>\n<line x1=\"" << kLeft << "\" y1=\"" << p.top + kTop << "\" x2=\""
        << kLeft << "\" y2=\"" << p.bottom() << "\" stroke=\"#333\"/>\n";
    svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << p.top + kTop + 4 << "\" text-anchor=\"end\" font-size=\"11\">"
        << number(p.y_max) << "</text>\n<text x=\"" << kLeft - 6 << "\" y=\"" << p.bottom()
        << "\" text-anchor=\"end\" font-size=\"11\">0</text>\n";
    const int middle = p.top + kTop + Panel::height() / 2;
    svg << "<text x=\"14\" y=\"" << middle << "\" font-size=\"11\" transform=\"rotate(-90 14 " << middle
        << ")\" text-anchor=\"middle\">" << svg_escaped(y_label) << "</text>\n";
    svg << "<text x=\"" << kLeft << "\" y=\"" << p.bottom() + 16 << "\" font-size=\"11\">" << svg_escaped(x_left)
        << "</text>\n<text x=\"" << kLeft + Panel::width() << "\" y=\"" << p.bottom() + 16
        << "\" text-anchor=\"end\" font-size=\"11\">" << svg_escaped(x_right) << "</text>\n";
}

void legend_entry(std::ostringstream& svg, const Panel& p, std::size_t i, const std::string& label) {
    const double y = p.top + kTop + 16.0 * static_cast<double>(i);
    svg << "<rect x=\"" << kWidth - kRight + 16 << "\" y=\"" << y << "\" width=\"10\" height=\"10\" fill=\""
        << series_color(i) << "\"/><text x=\"" << kWidth - kRight + 32 << "\" y=\"" << y + 9 << "\" font-size=\"11\">"
        << svg_escaped(label) << "</text>\n";
}

void wait_bars(std::ostringstream& svg, const ReplayResult& result, int top) {
    const auto& accounts = result.shown_accounts;
    const std::size_t policies = result.simulators.size();
    double y_max = 0;
    for (const auto& simulator : result.simulators)
        for (std::size_t a : accounts)
            y_max = std::max(y_max, simulator->statistics().accounts()[a].mean_wait() / 3600);
    Panel p{top, y_max};
    frame(svg, p, "Mean wait by account under each policy", "hours", "", "");
    const double group = accounts.empty() ? 0 : Panel::width() / static_cast<double>(accounts.size());
    const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(policies, 1));
    for (std::size_t g = 0; g < accounts.size(); ++g) {
        const double left = kLeft + group * static_cast<double>(g) + group * 0.1;
        for (std::size_t k = 0; k < policies; ++k) {
            const double value = result.simulators[k]->statistics().accounts()[accounts[g]].mean_wait() / 3600;
            svg << "<rect x=\"" << left + bar * static_cast<double>(k) << "\" y=\"" << p.y(value) << "\" width=\""
                << bar << "\" height=\"" << p.bottom() - p.y(value) << "\" fill=\"" << series_color(k) << "\"/>\n";
        }
        svg << "<text x=\"" << left + group * 0.4 << "\" y=\"" << p.bottom() + 30
            << "\" text-anchor=\"middle\" font-size=\"11\">" << svg_escaped(result.population->accounts()[accounts[g]])
            << "</text>\n";
    }
    for (std::size_t k = 0; k < policies; ++k) legend_entry(svg, p, k, result.simulators[k]->policy().name());
}

std::string polyline(const Panel& p, const std::vector<sim::ShareSample>& samples, std::int64_t from, std::int64_t to,
                     bool entitled) {
    std::ostringstream points;
    const double span = static_cast<double>(std::max<std::int64_t>(1, to - from));
    for (const sim::ShareSample& s : samples)
        points << p.x(static_cast<double>(s.end - from) / span) << "," << p.y(entitled ? s.entitled : s.delivered)
               << " ";
    return points.str();
}

void share_lines(std::ostringstream& svg, const ReplayResult& result, const sim::Simulator& simulator, int top,
                 const Options& options) {
    const auto& series = simulator.statistics().shares().tracked();
    std::int64_t from = INT64_MAX, to = INT64_MIN;
    double y_max = 0;
    for (const auto& samples : series)
        for (const sim::ShareSample& s : samples) {
            from = std::min(from, s.end);
            to = std::max(to, s.end);
            y_max = std::max({y_max, s.delivered, s.entitled});
        }
    Panel p{top, y_max > 0 ? y_max : 1};
    const std::string window = std::to_string(options.statistics.share_window / 86400.0).substr(0, 4);
    frame(svg, p, "Delivered (solid) vs entitled (dashed) share: " + simulator.policy().name(), "share of the window",
          from <= to ? date(from) : "", from <= to ? date(to) : "");
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (series[i].empty()) continue;
        svg << "<polyline fill=\"none\" stroke=\"" << series_color(i) << "\" stroke-width=\"1.2\" points=\""
            << polyline(p, series[i], from, to, false) << "\"/>\n";
        svg << "<polyline fill=\"none\" stroke=\"" << series_color(i)
            << "\" stroke-width=\"1\" stroke-dasharray=\"4 3\" points=\"" << polyline(p, series[i], from, to, true)
            << "\"/>\n";
    }
    for (std::size_t i = 0; i < result.tracked_entities.size(); ++i)
        legend_entry(svg, p, i, result.population->entities()[result.tracked_entities[i]]);
}

}  // namespace

std::string render_sim_svg(const ReplayResult& result, const Options& options) {
    const int panels = 1 + static_cast<int>(result.simulators.size());
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << panels * kPanelHeight
        << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    wait_bars(svg, result, 0);
    for (std::size_t k = 0; k < result.simulators.size(); ++k)
        share_lines(svg, result, *result.simulators[k], static_cast<int>(k + 1) * kPanelHeight, options);
    svg << "</svg>\n";
    return svg.str();
}

}  // namespace fairway::simtool
