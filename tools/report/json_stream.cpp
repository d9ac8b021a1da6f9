#include "tools/report/json_stream.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace fairway::report {
namespace {

using nlohmann::json;

// Buffered reading of a FILE* for the parser below. Lines are counted only when asked for (once
// per streamed element), over the bytes consumed since the last time, with a vectorised std::count.
class CountingReader {
public:
    static constexpr int kEnd = -1;

    explicit CountingReader(std::FILE* file) : file_(file), buffer_(1 << 16) {}
    int peek() {
        if (pos_ == len_ && !refill()) return kEnd;
        return static_cast<unsigned char>(buffer_[pos_]);
    }
    void skip() { ++pos_; }  // after a peek() that was not kEnd
    // Appends the bytes up to the next one `stop` accepts (or the end of the input) to `out`.
    template <typename Stop>
    void copy_until(std::string& out, Stop stop) {
        while (peek() != kEnd) {
            std::size_t from = pos_;
            while (pos_ < len_ && !stop(static_cast<unsigned char>(buffer_[pos_]))) ++pos_;
            out.append(buffer_.data() + from, pos_ - from);
            if (pos_ < len_) return;
        }
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

// A DOM builder that hands elements of streamed arrays to the handler instead of keeping them.
class StreamingBuilder {
public:
    StreamingBuilder(CountingReader& reader, const std::set<std::string>& streamed, const ElementHandler& handler)
        : reader_(reader), streamed_(streamed), handler_(handler) {}

    bool null() { return put(json(nullptr)); }
    bool boolean(bool value) { return put(json(value)); }
    bool number_integer(json::number_integer_t value) { return put(json(value)); }
    bool number_unsigned(json::number_unsigned_t value) { return put(json(value)); }
    bool number_float(json::number_float_t value) { return put(json(value)); }
    bool string(std::string& value) { return put(json(std::move(value))); }
    bool start_object() { return open(json::object()); }
    bool start_array() { return open(json::array()); }
    bool key(std::string& name) {
        key_ = std::move(name);
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(const std::string& message) {
        error_ = message;
        error_line_ = reader_.line();
        return false;
    }

    json& root() { return root_; }
    const std::string& error() const { return error_; }
    int error_line() const { return error_line_; }

private:
    struct Frame {
        json* value;
        bool streamed;     // an array whose elements go to the handler
        std::string name;  // member name of a streamed array
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

// A strict RFC 8259 parser feeding the builder: nlohmann's lexer spent half the time of a
// million-record report handling one character at a time; this one copies the plain runs of a
// string in one go. Numbers become unsigned, signed or double values as nlohmann types them;
// strings must be valid UTF-8. Recursive, so nesting is limited (no input needs more than 3).
class JsonParser {
public:
    JsonParser(CountingReader& in, StreamingBuilder& out) : in_(in), out_(out) {}

    bool parse() {
        skip_byte_order_mark();
        if (!value(0)) return false;
        skip_space();
        return in_.peek() == CountingReader::kEnd || fail("unexpected " + shown(in_.peek()) + " after the value");
    }

private:
    static constexpr int kMaxDepth = 256;

    bool fail(const std::string& problem) {
        return out_.parse_error("syntax error at line " + std::to_string(in_.line()) + ": " + problem);
    }
    static std::string shown(int c) {
        if (c == CountingReader::kEnd) return "end of input";
        if (c < 0x20 || c >= 0x7f) return "byte 0x" + hex(c);
        return std::string("'") + static_cast<char>(c) + "'";
    }
    static std::string hex(int c) {
        const char* digits = "0123456789abcdef";
        return {digits[(c >> 4) & 15], digits[c & 15]};
    }
    void skip_byte_order_mark() {
        if (in_.peek() != 0xef) return;
        in_.skip();
        if (in_.peek() == 0xbb) in_.skip();
        if (in_.peek() == 0xbf) in_.skip();
    }
    void skip_space() {
        for (int c = in_.peek(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = in_.peek()) in_.skip();
    }
    bool expect(char wanted, const char* what) {
        skip_space();
        if (in_.peek() != wanted) return fail("unexpected " + shown(in_.peek()) + "; expected " + what);
        in_.skip();
        return true;
    }

    bool value(int depth) {
        skip_space();
        int c = in_.peek();
        if (c == '{' || c == '[') {
            if (depth >= kMaxDepth) return fail("nesting deeper than " + std::to_string(kMaxDepth));
            in_.skip();
            return c == '{' ? object(depth + 1) : array(depth + 1);
        }
        if (c == '"') {
            std::string text;
            return string(text) && out_.string(text);
        }
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        if (c == 't') return literal("true") && out_.boolean(true);
        if (c == 'f') return literal("false") && out_.boolean(false);
        if (c == 'n') return literal("null") && out_.null();
        return fail("unexpected " + shown(c) + "; expected a value");
    }

    bool object(int depth) {
        out_.start_object();
        return members('}', "',' or '}'", [&] { return member(depth); }) && out_.end_object();
    }
    bool array(int depth) {
        out_.start_array();
        return members(']', "',' or ']'", [&] { return value(depth); }) && out_.end_array();
    }
    // The comma-separated parts of an object or array, after its opening bracket, and the closing one.
    template <typename Part>
    bool members(char close, const char* expected, Part part) {
        skip_space();
        if (in_.peek() == close) {
            in_.skip();
            return true;
        }
        do {
            if (!part()) return false;
            skip_space();
        } while (consume(','));
        return expect(close, expected);
    }
    bool consume(char wanted) {
        if (in_.peek() != wanted) return false;
        in_.skip();
        return true;
    }
    bool member(int depth) {
        skip_space();
        if (in_.peek() != '"') return fail("unexpected " + shown(in_.peek()) + "; expected a member name");
        std::string name;
        if (!string(name) || !expect(':', "':'")) return false;
        out_.key(name);
        return value(depth);
    }

    bool literal(const char* word) {
        for (const char* c = word; *c; ++c) {
            if (in_.peek() != static_cast<unsigned char>(*c))
                return fail("unexpected " + shown(in_.peek()) + " in '" + word + "'");
            in_.skip();
        }
        return true;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    bool number() {
        std::string text;
        auto take = [&] {
            text.push_back(static_cast<char>(in_.peek()));
            in_.skip();
        };
        auto digits = [&](const char* where) {
            if (!std::isdigit(in_.peek()))
                return fail("unexpected " + shown(in_.peek()) + " in a number; expected a digit " + where);
            while (std::isdigit(in_.peek())) take();
            return true;
        };
        if (in_.peek() == '-') take();
        if (in_.peek() == '0') take();
        else if (!digits("")) return false;
        bool integral = true;
        if (in_.peek() == '.') {
            integral = false;
            take();
            if (!digits("after '.'")) return false;
        }
        if (in_.peek() == 'e' || in_.peek() == 'E') {
            integral = false;
            take();
            if (in_.peek() == '+' || in_.peek() == '-') take();
            if (!digits("in the exponent")) return false;
        }
        return integral ? integer(text) : floating(text);
    }
    bool integer(const std::string& text) {
        const char* first = text.data();
        const char* last = first + text.size();
        if (text[0] == '-') {
            json::number_integer_t value = 0;
            if (std::from_chars(first, last, value).ec == std::errc()) return out_.number_integer(value);
        } else {
            json::number_unsigned_t value = 0;
            if (std::from_chars(first, last, value).ec == std::errc()) return out_.number_unsigned(value);
        }
        return floating(text);  // too large for 64 bits: a double, as nlohmann reads it
    }
    bool floating(const std::string& text) {
        double value = 0;
        auto result = std::from_chars(text.data(), text.data() + text.size(), value);
        if (result.ec == std::errc::result_out_of_range)
            value = std::strtod(text.c_str(), nullptr);                      // 0 or a denormal when tiny
        if (!std::isfinite(value)) return fail("number overflow: " + text);  // as nlohmann
        return out_.number_float(value);
    }

    // A string token (the opening quote next) into `text`, escapes resolved, UTF-8 checked.
    bool string(std::string& text) {
        in_.skip();
        while (true) {
            in_.copy_until(text, [](unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; });
            int c = in_.peek();
            if (c == '"') {
                in_.skip();
                return true;
            }
            if (c == CountingReader::kEnd || c < 0x20) return fail("unexpected " + shown(c) + " in a string");
            if (c == '\\' ? !escape(text) : !utf8_sequence(text)) return false;
        }
    }
    bool escape(std::string& text) {
        in_.skip();
        int c = in_.peek();
        const char* plain = std::strchr("\"\\/bfnrt", c == CountingReader::kEnd ? 'x' : c);
        if (c != CountingReader::kEnd && c != 0 && plain) {
            in_.skip();
            text.push_back("\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"]);
            return true;
        }
        if (c != 'u') return fail("unexpected " + shown(c) + " after '\\' in a string");
        in_.skip();
        std::uint32_t code = 0;
        if (!hex4(code)) return false;
        if (code >= 0xdc00 && code <= 0xdfff) return fail("a low surrogate \\u escape without a high one");
        if (code >= 0xd800 && code <= 0xdbff) {
            std::uint32_t low = 0;
            if (!literal("\\u") || !hex4(low)) return false;
            if (low < 0xdc00 || low > 0xdfff) return fail("a high surrogate \\u escape without a low one");
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        }
        append_utf8(text, code);
        return true;
    }
    bool hex4(std::uint32_t& code) {
        for (int i = 0; i < 4; ++i) {
            int c = in_.peek();
            if (!std::isxdigit(c)) return fail("unexpected " + shown(c) + " in a \\u escape");
            in_.skip();
            code = code * 16 + static_cast<std::uint32_t>(std::isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        return true;
    }
    static void append_utf8(std::string& text, std::uint32_t code) {
        if (code < 0x80) {
            text.push_back(static_cast<char>(code));
        } else if (code < 0x800) {
            text.push_back(static_cast<char>(0xc0 | (code >> 6)));
            text.push_back(static_cast<char>(0x80 | (code & 0x3f)));
        } else if (code < 0x10000) {
            text.push_back(static_cast<char>(0xe0 | (code >> 12)));
            text.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
            text.push_back(static_cast<char>(0x80 | (code & 0x3f)));
        } else {
            text.push_back(static_cast<char>(0xf0 | (code >> 18)));
            text.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
            text.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
            text.push_back(static_cast<char>(0x80 | (code & 0x3f)));
        }
    }
    // One multi-byte UTF-8 character (RFC 3629: no overlong forms, surrogates or code points above
    // U+10FFFF), copied as it is.
    bool utf8_sequence(std::string& text) {
        int lead = in_.peek();
        int continuation = lead >= 0xc2 && lead <= 0xdf   ? 1
                           : lead >= 0xe0 && lead <= 0xef ? 2
                           : lead >= 0xf0 && lead <= 0xf4 ? 3
                                                          : 0;
        if (continuation == 0) return fail("invalid UTF-8 byte 0x" + hex(lead) + " in a string");
        int low = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;  // the second byte's range
        int high = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
        text.push_back(static_cast<char>(lead));
        in_.skip();
        for (int i = 0; i < continuation; ++i, low = 0x80, high = 0xbf) {
            int c = in_.peek();
            if (c < low || c > high) return fail("invalid UTF-8 sequence in a string");
            text.push_back(static_cast<char>(c));
            in_.skip();
        }
        return true;
    }

    CountingReader& in_;
    StreamingBuilder& out_;
};

}  // namespace

json stream_json_object(std::FILE* file, const std::string& file_name, const std::set<std::string>& streamed_arrays,
                        const ElementHandler& on_element) {
    CountingReader reader(file);
    StreamingBuilder builder(reader, streamed_arrays, on_element);
    bool ok = JsonParser(reader, builder).parse();
    if (!ok) throw InputError({file_name, builder.error_line(), ""}, "malformed JSON: " + builder.error());
    if (!builder.root().is_object()) throw InputError({file_name, 1, ""}, "the top level must be a JSON object");
    return std::move(builder.root());
}

}  // namespace fairway::report
