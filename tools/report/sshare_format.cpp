#include "tools/report/sshare_format.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include "common/iso8601.h"
#include "common/slurm_time.h"

namespace fairway::report {
namespace {

std::string printf_string(const char* format, int width, int precision, double value) {
    char text[128];
    std::snprintf(text, sizeof text, format, width, precision, value);
    return text;
}

std::string plain_double(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%f", value);
    return text;
}

// One printable column: its sshare name and width (negative = left-aligned), the text of a cell
// in parsable form, and whether fixed-width form formats the cell as a number.
struct Column {
    const char* name;
    int width;
    std::function<std::string(const SummaryRow&)> parsable;
    std::function<std::string(const SummaryRow&, int)> fixed;
};

std::string fixed_text(const std::string& text, int width) {
    int abs_width = std::abs(width);
    std::string cell = text;
    if (static_cast<int>(cell.size()) > abs_width) {
        cell.resize(abs_width);
        cell.back() = '+';
    }
    char out[256];
    std::snprintf(out, sizeof out, width < 0 ? "%-*s" : "%*s", abs_width, cell.c_str());
    return out;
}

Column text_column(const char* name, int width, std::function<std::string(const SummaryRow&)> cell) {
    return {name, width, cell, [cell](const SummaryRow& row, int w) { return fixed_text(cell(row), w); }};
}

// A double that sshare prints empty when absent.
Column double_column(const char* name, int width, std::function<std::optional<double>(const SummaryRow&)> cell) {
    return {name, width,
            [cell](const SummaryRow& row) {
                auto v = cell(row);
                return v ? plain_double(*v) : std::string();
            },
            [cell](const SummaryRow& row, int w) {
                auto v = cell(row);
                return v ? sshare_fixed_double(*v, w) : fixed_text("", w);
            }};
}

std::string raw_shares_text(const SummaryRow& row) {
    if (!row.figures.raw_shares) return "";
    if (row.figures.raw_shares->use_parent) return "parent";
    return std::to_string(row.figures.raw_shares->raw);
}

std::string hours_text(double seconds) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2f", seconds / 3600.0);
    return text;
}

std::vector<Column> summary_columns() {
    using R = const SummaryRow&;
    return {
        text_column("Account", -20, [](R r) { return indented_account(r); }),
        text_column("User", 10, [](R r) { return r.user; }),
        text_column("RawShares", 10, raw_shares_text),
        double_column("NormShares", 11, [](R r) { return std::optional<double>(r.figures.norm_shares); }),
        text_column("RawUsage", 11,
                    [](R r) { return std::to_string(static_cast<unsigned long long>(r.figures.raw_usage)); }),
        double_column("NormUsage", 11, [](R r) { return r.figures.norm_usage; }),
        double_column("EffectvUsage", 13, [](R r) { return std::optional<double>(r.figures.effective_usage); }),
        double_column("FairShare", 10, [](R r) { return r.figures.fair_share; }),
        double_column("LevelFS", 10,
                      [](R r) {
                          return r.figures.level_fs ? std::optional<double>(static_cast<double>(*r.figures.level_fs))
                                                    : std::nullopt;
                      }),
        text_column("GPUHours", 10, [](R r) { return hours_text(r.totals.gpu_seconds); }),
        text_column("KubeGPUHours", 12, [](R r) { return hours_text(r.totals.kube_gpu_seconds); }),
        text_column("CPUHours", 10, [](R r) { return hours_text(r.totals.cpu_seconds); }),
    };
}

void print_header(std::ostream& out, const std::vector<Column>& columns, const TableStyle& style) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (style.parsable) out << columns[i].name << (i + 1 < columns.size() ? "|" : "");
        else out << fixed_text(columns[i].name, columns[i].width) << ' ';
    }
    out << '\n';
    if (style.parsable) return;
    for (const Column& column : columns) out << std::string(std::abs(column.width), '-') << ' ';
    out << '\n';
}

}  // namespace

std::string sshare_fixed_double(double value, int width) {
    int abs_width = std::abs(width);
    bool left = width < 0;
    std::string plain = printf_string(left ? "%-*.*f" : "%*.*f", abs_width, 6, value);
    if (static_cast<int>(plain.size()) <= abs_width) return plain;
    // Slurm first measures "%*.*e" at precision = width, then shrinks the precision by the excess.
    int fitted = abs_width;
    int measured = static_cast<int>(printf_string("%*.*e", fitted, fitted, value).size());
    if (measured > fitted) fitted -= measured - fitted;
    if (fitted < 0) fitted = 0;
    return printf_string(left ? "%-*.*e" : "%*.*e", fitted, fitted, value);
}

std::string indented_account(const SummaryRow& row) {
    // A user row sits one level below its account, which is exactly the user's own depth.
    return std::string(static_cast<std::size_t>(row.depth), ' ') + row.account;
}

std::vector<SummaryRow> summary_rows(const ReportModel& model, const fairshare::FairShareResult& result) {
    const fairshare::AssociationTree& tree = model.tree();
    std::vector<int> depth(tree.size(), 0);
    std::vector<SummaryRow> rows;
    for (std::size_t index : tree.sshare_order()) {
        const fairshare::AssociationNode& node = tree.node(index);
        std::optional<std::size_t> parent = tree.index_of(node.parent);
        depth[index] = parent ? depth[*parent] + 1 : 0;
        SummaryRow row;
        row.account = node.account;
        row.user = node.user;
        row.parent = (parent && !node.is_user()) ? tree.node(*parent).account : "";
        row.depth = depth[index];
        row.figures = result.figures().at(index);
        row.totals = node.is_user() ? model.own_totals(index) : model.subtree_totals(index);
        rows.push_back(std::move(row));
    }
    return rows;
}

void print_summary_table(std::ostream& out, const std::vector<SummaryRow>& rows, const TableStyle& style) {
    std::vector<Column> columns = summary_columns();
    if (style.header) print_header(out, columns, style);
    for (const SummaryRow& row : rows) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            if (style.parsable) out << columns[i].parsable(row) << (i + 1 < columns.size() ? "|" : "");
            else out << columns[i].fixed(row, columns[i].width) << ' ';
        }
        out << '\n';
    }
}

nlohmann::json json_number(std::optional<long double> value) {
    if (!value) return nullptr;
    if (std::isinf(*value)) return "inf";
    return static_cast<double>(*value);
}

nlohmann::json summary_json(const ReportSettings& settings, const std::vector<SummaryRow>& rows) {
    nlohmann::json out;
    out["now"] = format_iso8601(settings.now);
    out["window"] = format_slurm_duration(settings.window);
    out["half_life"] = format_slurm_duration(settings.half_life);
    out["algorithm"] = fairshare::algorithm_name(settings.fair_share);
    nlohmann::json& list = out["associations"] = nlohmann::json::array();
    for (const SummaryRow& row : rows) {
        const fairshare::ShareFigures& f = row.figures;
        nlohmann::json item = {{"account", row.account}, {"depth", row.depth}};
        if (!row.user.empty()) item["user"] = row.user;
        if (!row.parent.empty()) item["parent"] = row.parent;
        item["raw_shares"] = !f.raw_shares              ? nlohmann::json(nullptr)
                             : f.raw_shares->use_parent ? nlohmann::json("parent")
                                                        : nlohmann::json(f.raw_shares->raw);
        item["norm_shares"] = f.norm_shares;
        item["raw_usage"] = static_cast<double>(f.raw_usage);
        item["norm_usage"] = json_number(f.norm_usage);
        item["effective_usage"] = f.effective_usage;
        item["fair_share"] = json_number(f.fair_share);
        item["level_fs"] = json_number(f.level_fs);
        item["gpu_hours"] = row.totals.gpu_seconds / 3600.0;
        item["kubernetes_gpu_hours"] = row.totals.kube_gpu_seconds / 3600.0;
        item["cpu_hours"] = row.totals.cpu_seconds / 3600.0;
        item["billing_hours"] = row.totals.billing_seconds / 3600.0;
        list.push_back(std::move(item));
    }
    return out;
}

}  // namespace fairway::report
