#include "tools/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "common/iso8601.h"
#include "common/slurm_time.h"
#include "tools/report/child_process.h"
#include "tools/report/svg_text.h"

namespace fairway::report {
namespace {

constexpr int kWidth = 900, kPanelHeight = 300, kLeft = 80, kRight = 200, kTop = 40, kBottom = 50;

std::string number(double value) { return axis_number(value, 1); }

// One panel's drawing area and the mapping of data to it.
struct Panel {
    int top;
    double y_max;
    int plot_width() const { return kWidth - kLeft - kRight; }
    int plot_height() const { return kPanelHeight - kTop - kBottom; }
    double x(double fraction) const { return kLeft + fraction * plot_width(); }
    double y(double value) const { return top + kTop + plot_height() * (1 - (y_max > 0 ? value / y_max : 0)); }
};

void frame(std::ostringstream& svg, const Panel& p, const std::string& title, const std::string& y_label,
           const std::string& x_left, const std::string& x_right) {
    int bottom = p.top + kTop + p.plot_height();
    svg << "<text x=\"" << kLeft << "\" y=\"" << p.top + 24 << "\" font-size=\"16\" font-weight=\"bold\">"
        << svg_escaped(title) << "</text>\n";
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << bottom << "\" x2=\"" << kLeft + p.plot_width() << "\" y2=\""
        << bottom << "\" stroke=\"#333\"/>\n<line x1=\"" << kLeft << "\" y1=\"" << p.top + kTop << "\" x2=\"" << kLeft
        << "\" y2=\"" << bottom << "\" stroke=\"#333\"/>\n";
    svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << p.top + kTop + 4 << "\" text-anchor=\"end\" font-size=\"11\">"
        << number(p.y_max) << "</text>\n<text x=\"" << kLeft - 6 << "\" y=\"" << bottom
        << "\" text-anchor=\"end\" font-size=\"11\">0</text>\n";
    svg << "<text x=\"14\" y=\"" << p.top + kTop + p.plot_height() / 2
        << "\" font-size=\"11\" transform=\"rotate(-90 14 " << p.top + kTop + p.plot_height() / 2
        << ")\" text-anchor=\"middle\">" << svg_escaped(y_label) << "</text>\n";
    svg << "<text x=\"" << kLeft << "\" y=\"" << bottom + 16 << "\" font-size=\"11\">" << svg_escaped(x_left)
        << "</text>\n<text x=\"" << kLeft + p.plot_width() << "\" y=\"" << bottom + 16
        << "\" text-anchor=\"end\" font-size=\"11\">" << svg_escaped(x_right) << "</text>\n";
}

void legend_entry(std::ostringstream& svg, const Panel& p, std::size_t i, const std::string& label) {
    double y = p.top + kTop + 16.0 * static_cast<double>(i);
    svg << "<rect x=\"" << kWidth - kRight + 16 << "\" y=\"" << y << "\" width=\"10\" height=\"10\" fill=\""
        << series_color(i) << "\"/><text x=\"" << kWidth - kRight + 32 << "\" y=\"" << y + 9 << "\" font-size=\"11\">"
        << svg_escaped(label) << "</text>\n";
}

// The accounts directly under the root: the groups every panel compares.
std::vector<std::size_t> top_accounts(const fairshare::AssociationTree& tree) {
    std::vector<std::size_t> found;
    for (std::size_t child : tree.children(tree.root_index()))
        if (!tree.node(child).is_user()) found.push_back(child);
    return found;
}

void usage_panel(std::ostringstream& svg, const ReportModel& model, int top) {
    const fairshare::AssociationTree& tree = model.tree();
    std::vector<std::size_t> accounts = top_accounts(tree);
    std::vector<std::vector<double>> series, kubernetes;
    std::vector<double> stacked(ReportModel::kHistoryBins, 0.0);
    for (std::size_t account : accounts) {
        series.push_back(model.subtree_history(account));
        kubernetes.push_back(model.subtree_kubernetes_history(account));
        for (std::size_t b = 0; b < stacked.size(); ++b) stacked[b] += series.back()[b] / 3600.0;
    }
    Panel p{top, std::max(1e-9, *std::max_element(stacked.begin(), stacked.end())) * 1.05};
    frame(svg, p, "Usage per account over the window (billing-hours per bin, undecayed; pale: on Kubernetes)",
          "billing-hours", format_iso8601(model.history_start()), format_iso8601(model.settings().now));
    double bar = static_cast<double>(p.plot_width()) / ReportModel::kHistoryBins;
    std::vector<double> base(ReportModel::kHistoryBins, 0.0);
    for (std::size_t a = 0; a < accounts.size(); ++a) {
        legend_entry(svg, p, a, tree.node(accounts[a]).account);
        for (std::size_t b = 0; b < base.size(); ++b) {
            const double kube_hours = kubernetes[a][b] / 3600.0;
            const double slurm_hours = series[a][b] / 3600.0 - kube_hours;
            for (const auto& [hours, pale] : {std::pair{slurm_hours, false}, std::pair{kube_hours, true}}) {
                if (hours <= 0) continue;
                svg << "<rect x=\"" << kLeft + bar * b << "\" y=\"" << p.y(base[b] + hours) << "\" width=\""
                    << bar * 0.9 << "\" height=\"" << p.y(base[b]) - p.y(base[b] + hours) << "\" fill=\""
                    << series_color(a) << "\"" << (pale ? " fill-opacity=\"0.4\" class=\"kubernetes\"" : "") << "/>\n";
                base[b] += hours;
            }
        }
    }
}

// The users with the most windowed usage (at most eight), whose recovery is worth drawing.
std::vector<std::size_t> busiest_users(const fairshare::AssociationTree& tree) {
    std::vector<std::size_t> users;
    for (std::size_t i = 0; i < tree.size(); ++i)
        if (tree.node(i).is_user() && tree.node(i).own_usage > 0) users.push_back(i);
    std::sort(users.begin(), users.end(),
              [&](std::size_t a, std::size_t b) { return tree.node(a).own_usage > tree.node(b).own_usage; });
    if (users.size() > 8) users.resize(8);
    return users;
}

void factor_panel(std::ostringstream& svg, const ReportModel& model, int top) {
    const ReportSettings& s = model.settings();
    Seconds horizon = s.window != fairshare::kInfiniteWindow ? s.window
                      : s.half_life.count() > 0              ? 4 * s.half_life
                                                             : Seconds{14 * 86400};
    constexpr int kSteps = 40;
    std::vector<std::size_t> users = busiest_users(model.tree());
    std::vector<std::string> lines(users.size());
    for (int k = 0; k <= kSteps; ++k) {
        TimePoint at = s.now + horizon * k / kSteps;
        fairshare::FairShareResult result =
            fairshare::compute_fair_share(model.tree().with_usage(model.ledger(), at), s.fair_share);
        for (std::size_t u = 0; u < users.size(); ++u) {
            double factor = result.job_factor(model.tree().node(users[u]).id);
            lines[u] += number(Panel{top, 1.0}.x(static_cast<double>(k) / kSteps)) + "," +
                        number(Panel{top, 1.0}.y(factor)) + " ";
        }
    }
    Panel p{top, 1.0};
    frame(svg, p, "Fair-share factor from now on, with no new usage", "factor", "now",
          "+" + format_slurm_duration(horizon));
    for (std::size_t u = 0; u < users.size(); ++u) {
        const fairshare::AssociationNode& node = model.tree().node(users[u]);
        legend_entry(svg, p, u, node.user + " (" + node.account + ")");
        svg << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << series_color(u) << "\" points=\"" << lines[u]
            << "\"/>\n";
    }
}

void quota_panel(std::ostringstream& svg, const ReportModel& model, int top) {
    const fairshare::AssociationTree& tree = model.tree();
    fairshare::FairShareResult result = model.fair_share();
    std::vector<std::size_t> accounts = top_accounts(tree);
    Panel p{top, 1.0};
    frame(svg, p, "Quota use per account: share of the cluster (light) vs share of usage (dark)", "fraction", "", "");
    double slot = static_cast<double>(p.plot_width()) / std::max<std::size_t>(1, accounts.size());
    for (std::size_t a = 0; a < accounts.size(); ++a) {
        const fairshare::ShareFigures& f = result.figures().at(accounts[a]);
        double usage = f.norm_usage.value_or(0.0);
        double x = kLeft + slot * a + slot * 0.1;
        svg << "<rect x=\"" << x << "\" y=\"" << p.y(f.norm_shares) << "\" width=\"" << slot * 0.38 << "\" height=\""
            << p.y(0) - p.y(f.norm_shares) << "\" fill=\"" << series_color(a) << "\" fill-opacity=\"0.4\"/>\n";
        svg << "<rect x=\"" << x + slot * 0.4 << "\" y=\"" << p.y(usage) << "\" width=\"" << slot * 0.38
            << "\" height=\"" << p.y(0) - p.y(usage) << "\" fill=\"" << series_color(a) << "\"/>\n";
        svg << "<text x=\"" << x + slot * 0.39 << "\" y=\"" << p.y(0) + 14
            << "\" text-anchor=\"middle\" font-size=\"11\">" << svg_escaped(tree.node(accounts[a]).account)
            << "</text>\n";
    }
}

}  // namespace

std::string render_report_svg(const ReportModel& model) {
    std::ostringstream svg;
    svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth
        << "\" height=\"" << 3 * kPanelHeight << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    usage_panel(svg, model, 0);
    factor_panel(svg, model, kPanelHeight);
    quota_panel(svg, model, 2 * kPanelHeight);
    svg << "</svg>\n";
    return svg.str();
}

void convert_svg_to_png(const std::string& svg_path, const std::string& png_path) {
    try {
        tools::run_program({"rsvg-convert", "--format=png", "--output=" + png_path, svg_path});
    } catch (const std::runtime_error& error) {
        throw std::runtime_error(std::string(error.what()) + " writing " + png_path +
                                 " (rsvg-convert is Debian's librsvg2-bin)");
    }
}

}  // namespace fairway::report
