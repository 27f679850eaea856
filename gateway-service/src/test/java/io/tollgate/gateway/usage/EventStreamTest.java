package io.tollgate.gateway.usage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.vertx.core.MultiMap;

class EventStreamTest {

    private static final String TOTAL = "/usage/total_tokens";

    private static Usage read(String pointer, MultiMap headers, String stream) {
        return Feed.read(() -> UsageMeters.json(pointer), headers, stream);
    }

    private static Usage read(String stream) {
        return read(TOTAL, Feed.EVENT_STREAM, stream);
    }

    /** A chat completion streamed as OpenAI does with {@code stream_options.include_usage}. */
    private static final String CHAT = """
            : keep-alive

            data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":null}

            data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"}}],"usage":null}

            data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"lo \\"you\\"\\n"}}],"usage":null}

            data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}

            data: [DONE]

            """;

    @Test
    void theUsageInTheFinalEventBeforeDoneCounts() {
        assertThat(read(CHAT)).isEqualTo(new Usage.Used(12));
        assertThat(read("/usage/prompt_tokens", Feed.headers("content-type", "Text/Event-Stream ;charset=UTF-8"), CHAT))
                .isEqualTo(new Usage.Used(9));
    }

    @Test
    void theSameStreamIsNoJsonDocumentWithoutItsContentType() {
        assertThat(read(TOTAL, Feed.JSON, CHAT)).isEqualTo(Usage.ABSENT);
    }

    @Test
    void dataLinesOfOneEventJoinWithNewlines() {
        assertThat(read("data: {\"usage\":\ndata:\ndata\ndata:   {\"total_tokens\":\ndata:5}}\n\n"))
                .isEqualTo(new Usage.Used(5));
        assertThat(read("data: {\"usage\": {\"total_tokens\": \"a\ndata: b\"}}\n\n"))
                .as("a newline inside a JSON string is not JSON").isEqualTo(Usage.ABSENT);
    }

    @Test
    void linesEndWithCrLfOrCrAsWellAsLf() {
        String lines = "data: {\"usage\":\ndata: {\"total_tokens\": 7}}\n\ndata: [DONE]\n\n";
        assertThat(read(lines.replace("\n", "\r\n"))).isEqualTo(new Usage.Used(7));
        assertThat(read(lines.replace("\n", "\r"))).isEqualTo(new Usage.Used(7));
        assertThat(read("data: {\"usage\":\r\ndata: {\"total_tokens\": 7}}\r\r\n"))
                .as("mixed: CR LF is one line end, CR another").isEqualTo(new Usage.Used(7));
        assertThat(read("data: {\"usage\":\r\n\rdata: {\"total_tokens\": 7}}\n\n"))
                .as("a CR after CR LF is an empty line: the event ends early").isEqualTo(Usage.ABSENT);
    }

    @Test
    void theLastEventThatHasTheValueWins() {
        assertThat(read("""
                data: {"usage": {"total_tokens": 4}}

                data: {"usage": {"total_tokens": 6}}

                data: {"usage": null}

                data: {"choices": []}

                data: [DONE]

                """)).isEqualTo(new Usage.Used(6));
        assertThat(read("""
                data: {"usage": {"total_tokens": 4}}

                data: {"usage": {"total_tokens": -1}}

                """)).isEqualTo(new Usage.Invalid("-1", "not a non-negative whole number"));
    }

    @Test
    void anEventCutOffByTheEndOfTheStreamIsDiscarded() {
        assertThat(read("data: {\"usage\": {\"total_tokens\": 4}}\n\ndata: {\"usage\": {\"total_tokens\": 9}}\n"))
                .isEqualTo(new Usage.Used(4));
        assertThat(read("data: {\"usage\": {\"total_tokens\": 4}}\n\ndata: {\"usage\": {\"total_tokens\": 9}}"))
                .isEqualTo(new Usage.Used(4));
        assertThat(read("data: {\"usage\": {\"total_tokens\": 9}}\n")).isEqualTo(Usage.ABSENT);
    }

    @Test
    void commentsAndOtherFieldsPlayNoPart() {
        assertThat(read("""
                :data: {"usage": {"total_tokens": 1}}
                event: usage
                id: 7
                retry: 10
                datum: {"usage": {"total_tokens": 2}}
                dat: {"usage": {"total_tokens": 3}}
                Data: {"usage": {"total_tokens": 4}}
                data:{"usage": {"total_tokens": 5}}
                : ping

                event: end
                id: 8

                """)).isEqualTo(new Usage.Used(5));
    }

    @Test
    void anEventWithoutJsonOrWithoutDataHasNoUsage() {
        assertThat(read("data: [DONE]\n\n")).isEqualTo(Usage.ABSENT);
        assertThat(read("data:\n\ndata\n\n")).isEqualTo(Usage.ABSENT);
        assertThat(read("\n\n\n")).isEqualTo(Usage.ABSENT);
        assertThat(read("")).isEqualTo(Usage.ABSENT);
        assertThat(read("data: {\"usage\": {\"total_tokens\": 4}} trailing\n\n"))
                .as("found before the bad part, as in a body").isEqualTo(new Usage.Used(4));
    }
}
