#include "report/json_stream.h"

#include <iterator>
#include <vector>

namespace fairway::report {
namespace {

using nlohmann::json;

// Buffered reading that knows the current line, so errors can say where they are.
class CountingReader {
public:
    explicit CountingReader(std::FILE* file) : file_(file), buffer_(1 << 16) {}
    bool at_end() {
        if (pos_ < len_) return false;
        len_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
        pos_ = 0;
        return len_ == 0;
    }
    const char& current() const { return buffer_[pos_]; }
    void advance() {
        if (buffer_[pos_] == '\n') ++line_;
        ++pos_;
    }
    int line() const noexcept { return line_; }

private:
    std::FILE* file_;
    std::vector<char> buffer_;
    std::size_t pos_ = 0, len_ = 0;
    int line_ = 1;
};

// The minimal input iterator nlohmann's iterator adapter needs; all copies share one reader.
struct CountingIterator {
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    CountingReader* reader = nullptr;  // nullptr: the end iterator

    reference operator*() const { return reader->current(); }
    CountingIterator& operator++() {
        reader->advance();
        return *this;
    }
    CountingIterator operator++(int) {
        CountingIterator before = *this;
        ++*this;
        return before;
    }
    bool done() const { return reader == nullptr || reader->at_end(); }
    bool operator==(const CountingIterator& other) const { return done() == other.done(); }
    bool operator!=(const CountingIterator& other) const { return !(*this == other); }
};

// A DOM builder that hands elements of streamed arrays to the handler instead of keeping them.
class StreamingBuilder {
public:
    StreamingBuilder(const CountingReader& reader, const std::set<std::string>& streamed, const ElementHandler& handler)
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

    const CountingReader& reader_;
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
    bool ok = json::sax_parse(CountingIterator{&reader}, CountingIterator{}, &builder);
    if (!ok) throw InputError({file_name, builder.error_line(), ""}, "malformed JSON: " + builder.error());
    if (!builder.root().is_object()) throw InputError({file_name, 1, ""}, "the top level must be a JSON object");
    return std::move(builder.root());
}

}  // namespace fairway::report
