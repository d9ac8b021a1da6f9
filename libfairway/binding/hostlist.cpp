#include "binding/hostlist.h"

#include "binding/text.h"
#include "common/error.h"

namespace fairway::binding {
namespace {

[[noreturn]] void reject(std::string_view expression, const std::string& problem) {
    throw InputError({"", 0, "hostlist"}, problem + " in '" + std::string(expression) + "'");
}

// Splits on commas that are not inside brackets.
std::vector<std::string_view> top_level_items(std::string_view expression) {
    std::vector<std::string_view> items;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= expression.size(); ++i) {
        char c = i < expression.size() ? expression[i] : ',';
        if (c == '[' && ++depth > 1) reject(expression, "nested '['");
        if (c == ']' && --depth < 0) reject(expression, "unbalanced ']'");
        if (c == ',' && depth == 0) {
            if (i > start) items.push_back(expression.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0) reject(expression, "unbalanced '['");
    return items;
}

// One bracket body ("1-3,5,08-10") as the padded strings it stands for.
std::vector<std::string> expand_ranges(std::string_view body, std::string_view expression, std::size_t max_hosts) {
    std::vector<std::string> values;
    if (body.empty()) reject(expression, "empty '[]'");
    for (const auto& range : split(body, ',')) {
        auto bounds = split(range, '-');
        if (bounds.empty() || bounds.size() > 2) reject(expression, "bad range '" + range + "'");
        const std::string& low_text = bounds.front();
        auto low = parse_unsigned(low_text);
        auto high = parse_unsigned(bounds.back());
        if (!low || !high || *low > *high) reject(expression, "bad range '" + range + "'");
        if (*high - *low >= max_hosts) reject(expression, "too many hosts");
        for (unsigned long n = *low; n <= *high; ++n) {
            std::string digits = std::to_string(n);
            if (digits.size() < low_text.size()) digits.insert(0, low_text.size() - digits.size(), '0');
            values.push_back(std::move(digits));
        }
    }
    return values;
}

void expand_item(std::string_view item, std::string_view expression, std::size_t max_hosts,
                 std::vector<std::string>& out) {
    std::vector<std::string> names{""};
    while (!item.empty()) {
        auto open = item.find('[');
        std::string_view literal = item.substr(0, open);
        for (auto& name : names) name += literal;
        if (open == std::string_view::npos) break;
        auto close = item.find(']', open);
        auto values = expand_ranges(item.substr(open + 1, close - open - 1), expression, max_hosts);
        if (names.size() * values.size() > max_hosts) reject(expression, "too many hosts");
        std::vector<std::string> product;
        for (const auto& name : names)
            for (const auto& value : values) product.push_back(name + value);
        names = std::move(product);
        item.remove_prefix(close + 1);
    }
    if (out.size() + names.size() > max_hosts) reject(expression, "too many hosts");
    out.insert(out.end(), names.begin(), names.end());
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t max_hosts) {
    std::vector<std::string> hosts;
    for (auto item : top_level_items(expression)) expand_item(item, expression, max_hosts, hosts);
    return hosts;
}

std::string first_host(std::string_view expression) {
    auto items = top_level_items(expression);
    if (items.empty()) reject(expression, "no host");
    std::string_view first = items.front();
    // Only the first value of each bracket group matters; cut each group at its first ',' or '-'.
    std::string reduced;
    bool in_bracket = false, skipping = false;
    for (char c : first) {
        if (c == '[') {
            in_bracket = true;
            skipping = false;
            reduced += c;
            continue;
        }
        if (c == ']') {
            in_bracket = false;
            reduced += c;
            continue;
        }
        if (in_bracket && (c == ',' || c == '-')) skipping = true;
        if (!skipping || !in_bracket) reduced += c;
    }
    return expand_hostlist(reduced, 1).front();
}

}  // namespace fairway::binding
