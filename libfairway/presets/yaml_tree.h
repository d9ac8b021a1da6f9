// Internal: YAML text to a small tree in one pass of yaml-cpp's event parser, under a budget.
// slurmctld parses user presets inside job_submit, under its locks: the work must stop at the
// budget, not after it. So the text is measured before yaml-cpp sees it (size, structural
// characters), and documents, nodes and nesting are counted as the parser produces them.
// Aliases (*name) are refused: an alias copies the anchored value wherever it is used, so a few
// bytes of text could produce megabytes of presets; no preset needs one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fairway::presets {

// What one text may cost. Every count is checked while the text is read.
struct ParseBudget {
    std::size_t max_bytes;       // the text's size
    std::size_t max_structural;  // characters that make YAML structure: [ ] { } , : - ? & * ! | > and line breaks
    std::size_t max_documents;   // documents, empty ones included
    std::size_t max_nodes;       // scalars, nulls, sequences and mappings in all documents
    std::size_t max_depth = 16;  // sequences and mappings inside each other
    const char* name;            // how messages call the budget ("user preset")
};

// One YAML node. A mapping's entries are `items` in pairs: key, value, key, value...
struct YamlNode {
    enum class Kind { null, scalar, sequence, map };
    Kind kind = Kind::null;
    std::string scalar;
    std::vector<YamlNode> items;
    int line = 0;  // from 1; 0 when unknown
    bool is_null() const { return kind == Kind::null; }
    bool is_scalar() const { return kind == Kind::scalar; }
    bool is_map() const { return kind == Kind::map; }
    std::size_t map_size() const { return items.size() / 2; }
};

// The documents of `text` (an empty document is a null node). Throws InputError naming `file`,
// the line and the budget when the text is not plain UTF-8 YAML text (check_yaml_text), not
// valid YAML, holds an alias, or exceeds `budget`.
std::vector<YamlNode> parse_yaml_documents(std::string_view text, const std::string& file, const ParseBudget& budget);

// How many characters of `text` make YAML structure (see ParseBudget::max_structural).
std::size_t count_structural_characters(std::string_view text);

}  // namespace fairway::presets
