package io.tollgate.gateway.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.vertx.core.buffer.Buffer;

class SseParserTest {

    private final List<String> events = new ArrayList<>();
    private final SseParser parser = new SseParser(new SseListener() {

        @Override
        public void event(String type, String data) {
            events.add(type + " " + data);
        }

        @Override
        public void closed(Throwable error) {
        }
    });

    @Test
    void eventsSplitAnywhereAcrossChunksAreReassembledWithTheirTypes() {
        String stream = ":open\n\nevent: rules\ndata: {\"version\":4}\n\nid: 5\r\ndata: a\r\ndata: b\r\n\r\n"
                + "event: directory\ndata: {\"seq\":9}\n\n";
        for (int i = 0; i < stream.length(); i += 3) {
            parser.feed(Buffer.buffer(stream.substring(i, Math.min(stream.length(), i + 3))));
        }
        assertThat(events).containsExactly("rules {\"version\":4}", "message a\nb", "directory {\"seq\":9}");
    }

    @Test
    void commentsAndFieldsWithoutDataAreNoEvent() {
        parser.feed(Buffer.buffer("retry: 1000\n: watching versions after 3\n\n: heartbeat\n\n"));
        assertThat(events).isEmpty();
    }
}
