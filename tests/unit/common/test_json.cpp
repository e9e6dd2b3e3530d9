// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "common/json.hpp"

namespace json = softcomch::json;

namespace {

json::value ok(std::string_view text)
{
    std::string err = "unset";
    json::value v = json::parse(text, &err);
    EXPECT_EQ(err, "") << "while parsing: " << text;
    return v;
}

std::string error_of(std::string_view text)
{
    std::string err;
    json::value v = json::parse(text, &err);
    EXPECT_TRUE(v.is_null());
    EXPECT_FALSE(err.empty()) << "accepted: " << text;
    return err;
}

} // namespace

TEST(Json, Scalars)
{
    EXPECT_TRUE(ok("null").is_null());
    EXPECT_TRUE(ok("true").as_bool());
    EXPECT_FALSE(ok(" false ").as_bool());
    EXPECT_EQ(ok("0").as_int(), 0);
    EXPECT_EQ(ok("-42").as_int(), -42);
    EXPECT_TRUE(ok("42").is_int());
    EXPECT_TRUE(ok("42.0").is_double());
    EXPECT_TRUE(ok("42").is_number());
    EXPECT_TRUE(ok("4.5e1").is_number());
    EXPECT_DOUBLE_EQ(ok("4.5e1").as_double(), 45.0);
    EXPECT_DOUBLE_EQ(ok("-0.25").as_double(), -0.25);
    EXPECT_DOUBLE_EQ(ok("7").as_double(), 7.0);
    EXPECT_EQ(ok("9223372036854775807").as_int(), std::numeric_limits<int64_t>::max());
    EXPECT_EQ(ok("-9223372036854775808").as_int(), std::numeric_limits<int64_t>::min());
    // Beyond int64: a double.
    EXPECT_TRUE(ok("9223372036854775808").is_double());
    EXPECT_EQ(ok("1e-400").as_double(), 0.0);
    EXPECT_EQ(ok("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\"").as_string(), "a\"b\\c/d\n\t\xc3\xa9");
    EXPECT_EQ(ok("\"\\ud83d\\ude00\"").as_string(), "\xf0\x9f\x98\x80");
    EXPECT_EQ(ok("\"h\xc3\xa9llo\"").as_string(), "h\xc3\xa9llo");
}

TEST(Json, ObjectsKeepOrderAndFind)
{
    json::value v = ok(R"({"z": 1, "a": [true, null, "x"], "m": {"k": 2.5}})");
    ASSERT_TRUE(v.is_object());
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v.items()[0].first, "z");
    EXPECT_EQ(v.items()[1].first, "a");
    EXPECT_EQ(v.items()[2].first, "m");
    ASSERT_NE(v.find("a"), nullptr);
    EXPECT_EQ(v.find("a")->size(), 3u);
    EXPECT_TRUE((*v.find("a"))[1].is_null());
    EXPECT_EQ((*v.find("a"))[2].as_string(), "x");
    EXPECT_DOUBLE_EQ(v.find("m")->find("k")->as_double(), 2.5);
    EXPECT_EQ(v.find("nope"), nullptr);
    EXPECT_EQ(ok("[1]").find("a"), nullptr);
    EXPECT_EQ(ok("[]").size(), 0u);
    EXPECT_EQ(ok("{}").size(), 0u);
    EXPECT_EQ(ok("3").size(), 0u);
}

TEST(Json, AccessorsThrowOnWrongType)
{
    json::value v = ok(R"({"s": "x", "n": 1.5, "a": [1]})");
    EXPECT_THROW((void)v.find("s")->as_int(), json::type_error);
    EXPECT_THROW((void)v.find("n")->as_int(), json::type_error); // not integral
    EXPECT_THROW((void)v.find("n")->as_string(), json::type_error);
    EXPECT_THROW((void)v.find("a")->as_bool(), json::type_error);
    EXPECT_THROW((void)v.items()[0].second.items(), json::type_error);
    EXPECT_THROW((void)(*v.find("a"))[1], std::out_of_range);
    EXPECT_THROW((void)v[0], json::type_error);
    EXPECT_EQ(ok("2.0").as_int(), 2); // integral double is accepted by as_int
}

TEST(Json, Builders)
{
    json::value o = json::value::object();
    o.set("name", "mlx5_0").set("size", 4080).set("ok", true).set("ratio", 0.5);
    o.set("size", 4096); // replaces in place
    json::value arr;
    arr.push_back(1).push_back("two").push_back(json::value());
    o.set("list", arr);
    ASSERT_EQ(o.size(), 5u);
    EXPECT_EQ(o.items()[1].first, "size");
    EXPECT_EQ(o.find("size")->as_int(), 4096);
    EXPECT_EQ(json::dump(o, 0),
              R"({"name":"mlx5_0","size":4096,"ok":true,"ratio":0.5,"list":[1,"two",null]})");
    EXPECT_EQ(json::dump(o), "{\n  \"name\": \"mlx5_0\",\n  \"size\": 4096,\n  \"ok\": true,\n  "
                             "\"ratio\": 0.5,\n  \"list\": [\n"
                             "    1,\n    \"two\",\n    null\n  ]\n}");
    EXPECT_THROW(arr.set("k", 1), json::type_error);
    EXPECT_THROW(o.push_back(1), json::type_error);
    EXPECT_EQ(json::value(uint64_t{1} << 63).is_double(), true);
    EXPECT_EQ(json::value(uint32_t{7}).as_int(), 7);
}

TEST(Json, DumpEdgeCases)
{
    EXPECT_EQ(json::dump(json::value(1.0)), "1.0");
    EXPECT_EQ(json::dump(json::value(1e300)), "1e+300");
    EXPECT_EQ(json::dump(json::value(std::nan(""))), "null");
    EXPECT_EQ(json::dump(json::value(std::numeric_limits<double>::infinity())), "null");
    EXPECT_EQ(json::dump(json::value(std::string("a\"\\\n\x01\x7f"))),
              "\"a\\\"\\\\\\n\\u0001\\u007f\"");
    EXPECT_EQ(json::dump(json::value::array()), "[]");
    EXPECT_EQ(json::dump(json::value::object()), "{}");
    EXPECT_EQ(json::dump(json::value()), "null");
}

TEST(Json, RoundTrips)
{
    const char *docs[] = {
        R"({"version":1,"bluefields":[{"id":"bf0","host":[{"pci":"b1:00.0"}],"caps":{"x":-1.25e-7}}]})",
        R"([0,-0.5,1e+30,"\u0000",{"":{}},[[[]]],true,false,null])",
        R"("caf\u00e9 \ud83d\ude00")",
        R"(123456789012345)",
    };
    for (const char *d : docs) {
        json::value v = ok(d);
        for (int indent : {0, 2, 4}) {
            json::value again = ok(json::dump(v, indent));
            EXPECT_EQ(again, v) << d << " indent " << indent;
        }
    }
    // Shortest round-trip doubles.
    json::value v = ok("0.1");
    EXPECT_EQ(json::dump(v), "0.1");
    EXPECT_EQ(ok(json::dump(json::value(0.1 + 0.2))).as_double(), 0.1 + 0.2);
}

TEST(Json, ErrorPositions)
{
    EXPECT_EQ(error_of(""), "1:1: unexpected end of input, expected a value");
    EXPECT_EQ(error_of("{\n  \"a\": 1,\n}"), "3:1: trailing comma before '}'");
    EXPECT_EQ(error_of("[1, 2,]"), "1:7: trailing comma before ']'");
    EXPECT_EQ(error_of("{\"a\" 1}"), "1:6: expected ':' after member name, found '1'");
    EXPECT_EQ(error_of("{\"a\": 1 \"b\": 2}"),
              "1:9: expected ',' or '}' after an object member, found '\"'");
    EXPECT_EQ(error_of("{\"a\": 1, \"a\": 2}"), "1:10: duplicate member name \"a\"");
    EXPECT_EQ(error_of("[1] x"), "1:5: unexpected 'x' after the JSON value");
    EXPECT_EQ(error_of("\n\n   tru"), "3:4: invalid literal (expected 'true')");
    EXPECT_EQ(error_of("01"), "1:2: leading zeros are not allowed in numbers");
    EXPECT_EQ(error_of("1."), "1:3: expected a digit after the decimal point");
    EXPECT_EQ(error_of("-"), "1:2: expected a digit");
    EXPECT_EQ(error_of("+1"), "1:1: unexpected '+', expected a value");
    EXPECT_EQ(error_of("1e999"), "1:1: number out of range");
    EXPECT_EQ(error_of("\"abc"), "1:5: unterminated string");
    EXPECT_EQ(error_of("\"a\tb\""),
              "1:3: raw control character in string (use an escape such as \\n)");
    EXPECT_EQ(error_of("\"\\x\""), "1:2: invalid escape '\\x'");
    EXPECT_EQ(error_of("\"\\ud800\""), "1:2: unpaired high surrogate in \\u escape");
    EXPECT_EQ(error_of("\"\\udc00\""), "1:2: unpaired low surrogate in \\u escape");
    EXPECT_EQ(error_of("\"\\u12g4\""), "1:6: invalid hex digit in \\u escape");
    EXPECT_EQ(error_of("\"\xff\""), "1:2: invalid UTF-8 in string");
    EXPECT_EQ(error_of("\"\xc3\""), "1:2: invalid UTF-8 in string");
    EXPECT_EQ(error_of("\"\xc0\xaf\""), "1:2: invalid UTF-8 in string");     // overlong
    EXPECT_EQ(error_of("\"\xed\xa0\x80\""), "1:2: invalid UTF-8 in string"); // surrogate
    EXPECT_EQ(error_of("// comment\n1"), "1:1: unexpected '/', expected a value");
    EXPECT_EQ(error_of("NaN"), "1:1: unexpected 'N', expected a value");
    EXPECT_EQ(error_of("'a'"), "1:1: unexpected ''', expected a value");
    EXPECT_EQ(error_of("{1: 2}"), "1:2: expected a string (member name), found '1'");
    EXPECT_EQ(error_of("[\x01]"), "1:2: unexpected byte 0x01, expected a value");
}

TEST(Json, DepthLimit)
{
    std::string deep_ok(json::max_depth, '[');
    deep_ok += std::string(json::max_depth, ']');
    ok(deep_ok);
    std::string too_deep(json::max_depth + 1, '[');
    too_deep += std::string(json::max_depth + 1, ']');
    std::string err = error_of(too_deep);
    EXPECT_EQ(err, "1:" + std::to_string(json::max_depth + 1) + ": nesting deeper than 128 levels");
    // Very deep input fails cleanly rather than overflowing the stack.
    std::string huge(1'000'000, '[');
    EXPECT_NE(error_of(huge).find("nesting deeper"), std::string::npos);
}

TEST(Json, NullErrorPointerIsAllowed)
{
    EXPECT_TRUE(json::parse("{", nullptr).is_null());
    EXPECT_EQ(json::parse("[1]", nullptr).size(), 1u);
}
