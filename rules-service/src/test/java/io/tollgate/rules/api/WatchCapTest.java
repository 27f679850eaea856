package io.tollgate.rules.api;

import static io.tollgate.rules.Api.GATEWAY;
import static io.tollgate.rules.Api.READ;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.tollgate.rules.TestDatabase;

/** At most tollgate.watch.max-streams watch streams at once (two here); a closed one frees its place. */
@QuarkusTest
@TestProfile(WatchCapTest.TwoStreams.class)
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class WatchCapTest {

    /** Two watch streams at most. */
    public static class TwoStreams implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tollgate.watch.max-streams", "2");
        }
    }

    @Test
    void theThirdStreamGets503WithRetryAfterAndAClosedStreamFreesItsPlace() throws IOException {
        try (Stream first = Stream.open(GATEWAY); Stream second = Stream.open(READ)) {
            assertThat(first.head).startsWith("HTTP/1.1 200");
            assertThat(second.head).startsWith("HTTP/1.1 200");
            try (Stream third = Stream.open(GATEWAY)) {
                assertThat(third.head).startsWith("HTTP/1.1 503").containsIgnoringCase("retry-after: 5")
                        .containsIgnoringCase("content-type: application/problem+json");
                assertThat(third.rest()).contains("\"type\":\"too-many-streams\"");
            }
            first.close();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                try (Stream again = Stream.open(GATEWAY)) {
                    assertThat(again.head).startsWith("HTTP/1.1 200");
                }
            });
        }
        // a stream without a token takes no place: it is refused at the door
        try (Stream stranger = Stream.open(null)) {
            assertThat(stranger.head).startsWith("HTTP/1.1 401");
        }
    }

    /** A watch stream on a connection of its own, closed by closing the socket. */
    private static final class Stream implements AutoCloseable {

        private final Socket socket;
        private final String head;

        private Stream(Socket socket, String head) {
            this.socket = socket;
            this.head = head;
        }

        static Stream open(String authorization) throws IOException {
            Socket socket = new Socket();
            socket.setSoTimeout(10_000);
            socket.connect(new InetSocketAddress("127.0.0.1", RestAssured.port), 10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /api/v1/rules/watch?since=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                    + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.write(b);
            }
            return new Stream(socket, head.toString(StandardCharsets.ISO_8859_1));
        }

        /** What follows the head, up to the first chunk of the body. */
        String rest() throws IOException {
            byte[] buffer = new byte[4096];
            int n = socket.getInputStream().read(buffer);
            return n < 0 ? "" : new String(buffer, 0, n, StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
