package io.tollgate.gateway.usage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

class JsonBodyTest {

    private static final Usage ABSENT = Usage.ABSENT;

    private static Usage at(String pointer, String body) {
        return Feed.read(() -> UsageMeters.json(pointer), body);
    }

    private static Usage.Used used(long units) {
        return new Usage.Used(units);
    }

    @Test
    void aNestedPointerFindsItsNumberAmongOthers() {
        String body = """
                {"id": "c1", "usage": {"prompt_tokens": 9, "total": {"no": 1}, "total_tokens": 42, "x": [1, {"total_tokens": 7}]},
                 "total_tokens": 5}""";
        assertThat(at("/usage/total_tokens", body)).isEqualTo(used(42));
        assertThat(at("/total_tokens", body)).isEqualTo(used(5));
        assertThat(at("/usage/x/1/total_tokens", body)).isEqualTo(used(7));
        assertThat(at("/usage/missing", body)).isEqualTo(ABSENT);
        assertThat(at("/id/total_tokens", body)).as("a string has no members").isEqualTo(ABSENT);
    }

    @Test
    void arrayIndicesCountElementsOfAnyKind() {
        String body = """
                {"choices": [{"usage": {"total": 1}}, "s", [0, {"usage": {"total": 9}}], {"usage": {"total": 2}}],
                 "grid": [[1, 2], [3, 4]]}""";
        assertThat(at("/choices/0/usage/total", body)).isEqualTo(used(1));
        assertThat(at("/choices/3/usage/total", body)).isEqualTo(used(2));
        assertThat(at("/choices/2/1/usage/total", body)).isEqualTo(used(9));
        assertThat(at("/choices/4/usage/total", body)).isEqualTo(ABSENT);
        assertThat(at("/choices/03/usage/total", body)).as("a leading zero is no index").isEqualTo(ABSENT);
        assertThat(at("/choices/-", body)).as("the element after the last").isEqualTo(ABSENT);
        assertThat(at("/grid/1/0", body)).isEqualTo(used(3));
        assertThat(at("/grid/0/1", body)).isEqualTo(used(2));
        assertThat(at("/grid/1/1", body)).isEqualTo(used(4));
        assertThat(at("/1/0", "[[9], [7], [8]]")).as("past its index, an array matches no more")
                .isEqualTo(used(7));
        assertThat(at("/0", "[5, 6]")).isEqualTo(used(5));
        assertThat(at("/1", "[5, 6]")).isEqualTo(used(6));
    }

    @Test
    void anIndexSegmentIsAKeyInAnObject() {
        assertThat(at("/choices/0", "{\"choices\": {\"0\": 8}}")).isEqualTo(used(8));
    }

    @Test
    void keysMatchWholeAfterJsonEscapesAndPointerEscapes() {
        assertThat(at("/a~1b", "{\"a/b\": 1}")).isEqualTo(used(1));
        assertThat(at("/a~1b", "{\"a\\/b\": 2}")).isEqualTo(used(2));
        assertThat(at("/a~0b", "{\"a~b\": 3, \"a~0b\": 0}")).isEqualTo(used(3));
        assertThat(at("/~01", "{\"~1\": 4, \"/\": 0}")).isEqualTo(used(4));
        assertThat(at("/a\"b", "{\"a\\\"b\": 5}")).isEqualTo(used(5));
        assertThat(at("/a\\b", "{\"a\\\\b\": 6}")).isEqualTo(used(6));
        assertThat(at("/line\nend", "{\"line\\nend\": 7}")).isEqualTo(used(7));
        assertThat(at("/été", "{\"\\u00e9t\\u00E9\": 8}")).isEqualTo(used(8));
        assertThat(at("/été", "{\"été\": 9}")).isEqualTo(used(9));
        assertThat(at("/€", "{\"\\u20ac\": 10}")).isEqualTo(used(10));
        assertThat(at("/😀", "{\"\\ud83d\\ude00\": 11}")).isEqualTo(used(11));
        assertThat(at("/😀", "{\"😀\": 12}")).isEqualTo(used(12));
        assertThat(at("/", "{\"\": 13}")).as("the empty key").isEqualTo(used(13));
        assertThat(at("/usage", "{\"usage_extra\": 1, \"usag\": 2, \"Usage\": 3, \"usage\": 14, \"usage2\": 4}"))
                .isEqualTo(used(14));
        assertThat(at("/x", "{\"\\ud83dx\": 1}")).as("a lone surrogate is no character").isEqualTo(ABSENT);
    }

    @Test
    void theEmptyPointerIsTheWholeDocument() {
        assertThat(at("", "42")).isEqualTo(used(42));
        assertThat(at("", " 42 \n")).isEqualTo(used(42));
        assertThat(at("", "{\"a\": 1}")).isInstanceOf(Usage.Invalid.class);
    }

    @Test
    void aValueThatIsNoWholeNumberIsInvalidAndSaysWhatItWas() {
        assertThat(at("/u", "{\"u\": {\"total\": 3}}"))
                .isEqualTo(new Usage.Invalid("{\"total\": 3}", "an object, not a number"));
        assertThat(at("/u", "{\"u\": [1, 2]}")).isEqualTo(new Usage.Invalid("[1, 2]", "an array, not a number"));
        assertThat(at("/u", "{\"u\": \"12\"}")).isEqualTo(new Usage.Invalid("\"12\"", "a string, not a number"));
        assertThat(at("/u", "{\"u\": \"\"}")).isEqualTo(new Usage.Invalid("\"\"", "a string, not a number"));
        assertThat(at("/u", "{\"u\": true}")).isEqualTo(new Usage.Invalid("true", "a boolean, not a number"));
        assertThat(at("/u", "{\"u\": false}")).isEqualTo(new Usage.Invalid("false", "a boolean, not a number"));
        for (String number : new String[]{"-3", "1.5", "1e3", "2.0", "1E+2", "-0"}) {
            assertThat(at("/u", "{\"u\": " + number + "}"))
                    .isEqualTo(new Usage.Invalid(number, "not a non-negative whole number"));
        }
        assertThat(at("/u", "{\"u\": 99999999999999999999}"))
                .isEqualTo(new Usage.Invalid("99999999999999999999", "too large for a long"));
        assertThat(at("/u", "{\"u\": null}")).as("null says nothing").isEqualTo(ABSENT);
    }

    @Test
    void theLimitsOfALong() {
        assertThat(at("/u", "{\"u\": 9223372036854775807}")).isEqualTo(used(Long.MAX_VALUE));
        assertThat(at("/u", "{\"u\": 9223372036854775808}")).isInstanceOf(Usage.Invalid.class);
        assertThat(at("/u", "{\"u\": 0}")).isEqualTo(used(0));
    }

    @Test
    void aLongValueIsKeptToItsFirstCharacters() {
        String digits = "1".repeat(100);
        Usage.Invalid number = (Usage.Invalid) at("/u", "{\"u\": " + digits + "}");
        assertThat(number.value()).isEqualTo(digits.substring(0, 64));
        String text = "x".repeat(100);
        Usage.Invalid string = (Usage.Invalid) at("/u", "{\"u\": \"" + text + "\"}");
        assertThat(string.value()).isEqualTo("\"" + text.substring(0, 63));
    }

    @Test
    void whitespaceMayStandBetweenAnyTokens() {
        String body = " \n\t{ \r\n\"usage\" \t: \n { \"n\" : [ ] , \"total\"\r: 5 \n } , \"e\" : { } \n } \r\n ";
        assertThat(at("/usage/total", body)).isEqualTo(used(5));
    }

    @Test
    void theLastOfDuplicateKeysWins() {
        assertThat(at("/u", "{\"u\": 1, \"u\": 2}")).isEqualTo(used(2));
        assertThat(at("/u/t", "{\"u\": {\"t\": 1}, \"u\": {\"t\": 2}}")).isEqualTo(used(2));
        assertThat(at("/u/t", "{\"u\": {\"t\": 1, \"t\": 3}}")).isEqualTo(used(3));
        assertThat(at("/u/t", "{\"u\": {\"t\": 1}, \"u\": {\"x\": 2}}")).as("the last u has no t").isEqualTo(ABSENT);
        assertThat(at("/u", "{\"u\": 1, \"u\": \"one\"}")).isInstanceOf(Usage.Invalid.class);
        assertThat(at("/u/0", "{\"u\": [1], \"v\": 0, \"u\": [4]}")).isEqualTo(used(4));
    }

    @Test
    void aBodyThatIsNotJsonHasNoUsageUnlessItWasFoundBeforeTheBadPart() {
        assertThat(at("/u", "<html>u: 5</html>")).isEqualTo(ABSENT);
        assertThat(at("/u", "")).isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": tru, \"u\": 5}")).isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": [1}, \"u\": 5}")).as("brackets that do not pair").isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": \"a\tb\", \"u\": 5}")).as("a raw control character").isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": \"\\q\", \"u\": 5}")).as("an unknown escape").isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": \"\\u12g4\", \"u\": 5}")).as("a bad \\u escape").isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": 01, \"u\": 5}")).as("a leading zero").isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": 1., \"u\": 5}")).as("a point without digits").isEqualTo(ABSENT);
        assertThat(at("/u", "{\"x\": [1,], \"u\": 5}")).as("a trailing comma").isEqualTo(ABSENT);
        assertThat(at("/u", "{'u': 5}")).isEqualTo(ABSENT);
        assertThat(at("/u", "{\"u\": 5")).as("the number never ended").isEqualTo(ABSENT);

        assertThat(at("/u", "{\"u\": 5, oops")).isEqualTo(used(5));
        assertThat(at("/u", "{\"u\": 5} {\"u\": 6}")).as("what follows the document").isEqualTo(used(5));
        assertThat(at("/u", "{\"u\": 5, \"u\": 1.}")).as("the last u broke off").isEqualTo(ABSENT);
    }

    @Test
    void nestingDeeperThanJacksonAllowsIsNotRead() {
        int deep = JsonScanner.MAX_DEPTH;
        String allowed = "{\"u\": 5, \"deep\": " + "[".repeat(deep - 1) + "]".repeat(deep - 1) + "}";
        assertThat(at("/u", allowed)).isEqualTo(used(5));
        String tooDeep = "{\"deep\": " + "[".repeat(deep) + "]".repeat(deep) + ", \"u\": 5}";
        assertThat(at("/u", tooDeep)).isEqualTo(ABSENT);
    }

    @Test
    void aBodyInACodingTheGatewayDoesNotDecodeHasNoUsage() {
        Supplier<UsageMeter> meters = () -> UsageMeters.json("/u");
        assertThat(Feed.read(meters, Feed.headers("Content-Encoding", "br"), "{\"u\": 5}"))
                .isInstanceOf(Usage.Invalid.class);
        assertThat(Feed.read(meters, Feed.headers("Content-Encoding", "identity"), "{\"u\": 5}"))
                .isEqualTo(used(5));
    }

    @Test
    void anyContentTypeButAnEventStreamIsReadAsJson() {
        Supplier<UsageMeter> meters = () -> UsageMeters.json("/u");
        assertThat(Feed.read(meters, Feed.headers(), "{\"u\": 5}")).isEqualTo(used(5));
        assertThat(Feed.read(meters, Feed.headers("Content-Type", "text/plain"), "{\"u\": 5}")).isEqualTo(used(5));
        assertThat(Feed.read(meters, Feed.JSON, "data: {\"u\": 5}\n\n")).isEqualTo(ABSENT);
    }
}
