#include "report/json_stream.h"

#include <algorithm>
#include <string>
#include <vector>

namespace fairway::report {
namespace {

using nlohmann::json;

// nlohmann's input adapter over a buffered FILE*: one bounds check per character, where the
// iterator adapter costs two iterator comparisons. Lines are counted only when asked for (once per
// streamed element), over the bytes consumed since the last time, with a vectorised std::count.
class CountingReader {
public:
    using char_type = char;

    explicit CountingReader(std::FILE* file) : file_(file), buffer_(1 << 16) {}
    std::char_traits<char>::int_type get_character() {
        if (pos_ == len_ && !refill()) return std::char_traits<char>::eof();
        return std::char_traits<char>::to_int_type(buffer_[pos_++]);
    }
    // 1 + the newlines consumed so far.
    int line() {
        count_lines_up_to_pos();
        return line_;
    }

private:
    void count_lines_up_to_pos() {
        line_ += static_cast<int>(std::count(buffer_.begin() + counted_, buffer_.begin() + pos_, '\n'));
        counted_ = pos_;
    }
    bool refill() {
        count_lines_up_to_pos();
        len_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
        pos_ = counted_ = 0;
        return len_ > 0;
    }

    std::FILE* file_;
    std::vector<char> buffer_;
    std::size_t pos_ = 0, len_ = 0, counted_ = 0;
    int line_ = 1;
};

// The parser owns its adapter; this one forwards to a reader the builder can also ask for lines.
struct ReaderAdapter {
    using char_type = char;
    CountingReader* reader;
    std::char_traits<char>::int_type get_character() { return reader->get_character(); }
};

// A DOM builder that hands elements of streamed arrays to the handler instead of keeping them.
class StreamingBuilder {
public:
    StreamingBuilder(CountingReader& reader, const std::set<std::string>& streamed, const ElementHandler& handler)
        : reader_(reader), streamed_(streamed), handler_(handler) {}

    bool null() { return put(json(nullptr)); }
    bool boolean(bool value) { return put(json(value)); }
    bool number_integer(json::number_integer_t value) { return put(json(value)); }
    bool number_unsigned(json::number_unsigned_t value) { return put(json(value)); }
    bool number_float(json::number_float_t value, const std::string&) { return put(json(value)); }
    bool string(std::string& value) { return put(json(std::move(value))); }
    bool binary(json::binary_t&) { return put(json(nullptr)); }
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool key(std::string& name) {
        key_ = std::move(name);
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
        error_ = error.what();
        error_line_ = reader_.line();
        return false;
    }

    json& root() { return root_; }
    const std::string& error() const { return error_; }
    int error_line() const { return error_line_; }

private:
    struct Frame {
        json* value;
        bool streamed;       // an array whose elements go to the handler
        std::string name;    // member name of a streamed array
        std::size_t next_index = 0;
        int element_line = 0;
    };

    json* place(json value) {
        if (stack_.empty()) {
            root_ = std::move(value);
            return &root_;
        }
        json& parent = *stack_.back().value;
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        json& slot = parent[key_];
        slot = std::move(value);
        return &slot;
    }
    bool put(json value) {
        if (!stack_.empty() && stack_.back().streamed) stack_.back().element_line = reader_.line();
        place(std::move(value));
        return deliver_if_element();
    }
    bool open(json container) {
        bool top_level_member = stack_.size() == 1;
        if (!stack_.empty() && stack_.back().streamed) stack_.back().element_line = reader_.line();
        bool is_streamed = top_level_member && container.is_array() && streamed_.count(key_) > 0;
        std::string name = is_streamed ? key_ : std::string();
        json* where = place(std::move(container));
        stack_.push_back(Frame{where, is_streamed, std::move(name)});
        return true;
    }
    bool close() {
        stack_.pop_back();
        return deliver_if_element();
    }
    // After a value is complete: if it is an element of a streamed array, hand it over and drop it.
    bool deliver_if_element() {
        if (stack_.empty() || !stack_.back().streamed) return true;
        Frame& array = stack_.back();
        handler_(array.name, array.next_index++, array.value->back(), array.element_line, root_);
        array.value->erase(array.value->size() - 1);
        return true;
    }

    CountingReader& reader_;
    const std::set<std::string>& streamed_;
    const ElementHandler& handler_;
    json root_;
    std::vector<Frame> stack_;
    std::string key_;
    std::string error_;
    int error_line_ = 0;
};

}  // namespace

json stream_json_object(std::FILE* file, const std::string& file_name, const std::set<std::string>& streamed_arrays,
                        const ElementHandler& on_element) {
    CountingReader reader(file);
    StreamingBuilder builder(reader, streamed_arrays, on_element);
    nlohmann::detail::parser<json, ReaderAdapter> parser(ReaderAdapter{&reader}, nullptr, true, false);
    bool ok = parser.sax_parse(&builder, true);
    if (!ok) throw InputError({file_name, builder.error_line(), ""}, "malformed JSON: " + builder.error());
    if (!builder.root().is_object()) throw InputError({file_name, 1, ""}, "the top level must be a JSON object");
    return std::move(builder.root());
}

}  // namespace fairway::report
