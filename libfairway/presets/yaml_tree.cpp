#include "presets/yaml_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <sstream>

#include "common/error.h"
#include "presets/text_guard.h"

namespace fairway::presets {
namespace {

constexpr std::string_view kStructural = "[]{},:-?&*!|>\n";

int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 1; }

// Builds the tree from yaml-cpp's events, counting as it goes: the first event over the budget
// throws, so yaml-cpp stops there.
class TreeBuilder : public YAML::EventHandler {
public:
    TreeBuilder(const std::string& file, const ParseBudget& budget) : file_(file), budget_(budget) {}

    std::vector<YamlNode>& documents() { return documents_; }

    void OnDocumentStart(const YAML::Mark& mark) override {
        if (documents_.size() == budget_.max_documents)
            over(mark, "more than " + std::to_string(budget_.max_documents) + " YAML documents");
        documents_.emplace_back();
        documents_.back().line = line_of(mark);
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { add(mark, YamlNode::Kind::null); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
        throw InputError({file_, line_of(mark), ""},
                         "YAML aliases (*name) are not allowed in presets: each one copies the anchored value");
    }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
        add(mark, YamlNode::Kind::scalar).scalar = value;
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        open(add(mark, YamlNode::Kind::sequence), mark);
    }
    void OnSequenceEnd() override { open_.pop_back(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        open(add(mark, YamlNode::Kind::map), mark);
    }
    void OnMapEnd() override { open_.pop_back(); }

private:
    [[noreturn]] void over(const YAML::Mark& mark, const std::string& what) const {
        throw InputError({file_, line_of(mark), ""}, what + " (" + budget_.name + " budget)");
    }

    // Only the innermost open node grows, so pointers to the open ones stay valid.
    YamlNode& add(const YAML::Mark& mark, YamlNode::Kind kind) {
        if (++nodes_ > budget_.max_nodes) over(mark, "more than " + std::to_string(budget_.max_nodes) + " YAML values");
        YamlNode* node = nullptr;
        if (open_.empty()) node = &documents_.back();
        else node = &open_.back()->items.emplace_back();
        node->kind = kind;
        node->line = line_of(mark);
        return *node;
    }
    void open(YamlNode& node, const YAML::Mark& mark) {
        if (open_.size() == budget_.max_depth)
            over(mark, "lists and mappings nested more than " + std::to_string(budget_.max_depth) + " deep");
        open_.push_back(&node);
    }

    const std::string& file_;
    const ParseBudget& budget_;
    std::vector<YamlNode> documents_;
    std::vector<YamlNode*> open_;
    std::size_t nodes_ = 0;
};

void check_text_budget(std::string_view text, const std::string& file, const ParseBudget& budget) {
    if (text.size() > budget.max_bytes)
        throw InputError({file, 0, ""}, std::to_string(text.size()) + " bytes, more than " +
                                            std::to_string(budget.max_bytes) + " (" + budget.name + " budget)");
    check_yaml_text(text, file);
    if (auto structural = count_structural_characters(text); structural > budget.max_structural)
        throw InputError({file, 0, ""}, std::to_string(structural) +
                                            " structural characters ([]{},:-?&*!|> and line "
                                            "breaks), more than " +
                                            std::to_string(budget.max_structural) + " (" + budget.name + " budget)");
}

}  // namespace

std::size_t count_structural_characters(std::string_view text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return kStructural.find(c) != std::string_view::npos; }));
}

std::vector<YamlNode> parse_yaml_documents(std::string_view text, const std::string& file, const ParseBudget& budget) {
    check_text_budget(text, file, budget);
    std::istringstream stream{std::string(text)};
    TreeBuilder builder(file, budget);
    try {
        YAML::Parser parser(stream);
        // yaml-cpp 0.7 turns a stray ',' where a document may start into endless empty documents;
        // the document budget ends them.
        while (parser.HandleNextDocument(builder)) {}
    } catch (const YAML::Exception& e) {
        throw InputError({file, line_of(e.mark), ""}, "not valid YAML: " + e.msg);
    }
    return std::move(builder.documents());
}

}  // namespace fairway::presets
